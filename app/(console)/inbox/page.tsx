import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { InboxQueue } from "@/components/inbox/inbox-queue";
import { AccessDenied } from "@/components/shell/access-denied";
import { LoadingRows } from "@/components/ui/loading";
import { PageHeader } from "@/components/ui/page-header";
import { can } from "@/lib/auth/rbac";
import { requirePageScope } from "@/lib/auth/session";
import { findInboxItems } from "@/lib/queries/packets";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Inbox" };

export default async function InboxPage() {
  const { user, isAllowed } = await requirePageScope("packets:read");
  if (!isAllowed) return <AccessDenied role={user.role} scope="packets:read" />;
  const items = await findInboxItems();
  const loadedAt = new Date().getTime();
  return (
    <>
      <PageHeader
        title="Inbox"
        description="Decision packets waiting for a person. It updates on its own."
        actions={
          <Link href="/inbox/history" className="text-sm text-blue-700 underline">
            Decision history
          </Link>
        }
      />
      <Suspense fallback={<LoadingRows label="Loading the inbox" />}>
        <InboxQueue initialItems={items} initialAt={loadedAt} me={user.email} canDecide={can(user.role, "packets:decide")} />
      </Suspense>
    </>
  );
}
