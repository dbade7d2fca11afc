import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { Suspense } from "react";
import { InboxQueue } from "@/components/inbox/inbox-queue";
import { AccessDenied } from "@/components/shell/access-denied";
import { LoadingRows } from "@/components/ui/loading";
import { PageHeader } from "@/components/ui/page-header";
import { can } from "@/lib/auth/rbac";
import { requirePageScope } from "@/lib/auth/session";
import { inboxFiltersToParams, parseInboxFilters } from "@/lib/inbox/queue";
import { findConsoleInboxPage } from "@/lib/queries/packets";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Inbox" };

export default async function InboxPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { user, isAllowed } = await requirePageScope("packets:read");
  if (!isAllowed) return <AccessDenied role={user.role} scope="packets:read" />;
  const filters = parseInboxFilters(await searchParams);
  const page = await findConsoleInboxPage({ filters, me: user.email });
  return (
    <>
      <PageHeader
        title="Inbox"
        description="Decision packets waiting for a person. It updates on its own."
        actions={
          <ConsoleLink href="/inbox/history" className="text-sm text-blue-700 underline">
            Decision history
          </ConsoleLink>
        }
      />
      <Suspense fallback={<LoadingRows label="Loading the inbox" />}>
        <InboxQueue
          initialPage={page}
          initialFiltersKey={inboxFiltersToParams(filters).toString()}
          initialAt={Date.parse(page.at)}
          me={user.email}
          canDecide={can(user.role, "packets:decide")}
        />
      </Suspense>
    </>
  );
}
