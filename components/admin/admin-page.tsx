import type { ReactNode } from "react";
import { AccessDenied } from "@/components/shell/access-denied";
import { PageHeader } from "@/components/ui/page-header";
import type { SessionUser } from "@/lib/auth/rbac";
import { requirePageScope } from "@/lib/auth/session";
import type { SearchParams } from "@/lib/queries/search-params";

/** What an admin page reads its content from: the signed-in admin and the URL's query. */
export type AdminPageContext = { user: SessionUser; searchParams: SearchParams };

/** A header part that is the same on every request, or one made from the request (a name, a filter). */
type FromRequest<T> = T | ((context: AdminPageContext) => T);

type AdminPageHeader = {
  /** The page's h1 (its metadata title says the same). */
  title: string;
  description: FromRequest<ReactNode>;
  actions?: FromRequest<ReactNode>;
};

const fromRequest = <T,>(part: FromRequest<T>, context: AdminPageContext): T =>
  typeof part === "function" ? (part as (context: AdminPageContext) => T)(context) : part;

/**
 * Every admin page: the signed-in person must hold admin:manage, or the page renders <AccessDenied> and reads
 * nothing (its actions refuse on their own anyway); then its header, and the content `render` reads.
 */
export function defineAdminPage(header: AdminPageHeader, render: (context: AdminPageContext) => Promise<ReactNode>) {
  return async function AdminPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
    const [params, { user, isAllowed }] = await Promise.all([searchParams, requirePageScope("admin:manage")]);
    if (!isAllowed) return <AccessDenied role={user.role} scope="admin:manage" />;
    const context = { user, searchParams: params };
    const content = await render(context);
    return (
      <>
        <PageHeader
          title={header.title}
          description={fromRequest(header.description, context)}
          actions={header.actions && fromRequest(header.actions, context)}
        />
        {content}
      </>
    );
  };
}
