import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { defineAdminPage } from "@/components/admin/admin-page";
import { AuditFilters } from "@/components/admin/audit/audit-filters";
import { AuditTable } from "@/components/admin/audit/audit-table";
import { EmptyState } from "@/components/ui/empty-state";
import { isAuditFilterActive, parseAuditPageParams, toAuditSearchParams, type AuditFilter } from "@/lib/audit/filter";
import { findConsoleAuditPage } from "@/lib/queries/console-pages";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Audit log" };

/** Actions offered as suggestions in the filter (any action, or its start, can be typed). */
const KNOWN_ACTIONS = [
  "packets.decide",
  "packets.assign",
  "runs.cancel",
  "runs.resume",
  "runs.retry",
  "runs.fork",
  "runs.upgrade",
  "agents.",
  "permissions.put",
  "permissions.remove",
  "users.",
  "tokens.",
  "tools.",
  "auth.",
  "audit.export",
];
const LINK =
  "rounded-md border border-zinc-300 bg-white px-3 py-1 text-sm text-zinc-700 hover:border-zinc-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600";

export default defineAdminPage(
  {
    title: "Audit log",
    description:
      "Every action people and their tokens took, newest first: who, through what, on which object, and the change where it is recorded.",
    // The downloads hold the filter the list shows (parsing the URL's query again is pure and cheap).
    actions: ({ searchParams }) => <AuditDownloads filter={parseAuditPageParams(searchParams).filter} />,
  },
  async ({ searchParams }) => {
    const { filter, ignored, cursor } = parseAuditPageParams(searchParams);
    const page = await findConsoleAuditPage(filter, cursor);
    const filterQuery = toAuditSearchParams(filter).toString();
    const isFiltered = isAuditFilterActive(filter);
    const pageHref = (extra: Record<string, string | undefined>) =>
      `/admin/audit?${toAuditSearchParams(filter, extra)}`;
    return (
      <>
        <AuditFilters key={filterQuery} filter={filter} ignored={ignored} actions={KNOWN_ACTIONS} />
        {page.entries.length === 0 ? (
          <EmptyState title={isFiltered ? "No entries match" : cursor ? "No older entries" : "Nothing audited yet"}>
            {isFiltered ? "Try another actor, action, object or range of days." : "Actions people take appear here."}
          </EmptyState>
        ) : (
          <AuditTable entries={page.entries} />
        )}
        {(cursor || page.olderCursor) && (
          <nav aria-label="Pagination" className="mt-4 flex items-center justify-between gap-2">
            {cursor ? (
              <ConsoleLink href={pageHref({})} className={LINK}>
                ⇤ Newest
              </ConsoleLink>
            ) : (
              <span />
            )}
            {page.olderCursor && (
              <ConsoleLink href={pageHref({ cursor: page.olderCursor })} className={LINK}>
                Older →
              </ConsoleLink>
            )}
          </nav>
        )}
      </>
    );
  },
);

/** The entries matching the filter, as files. */
function AuditDownloads({ filter }: { filter: AuditFilter }) {
  return (
    <div className="flex items-center gap-2 text-sm">
      <a
        href={`/api/console/audit?${toAuditSearchParams(filter, { format: "csv" })}`}
        download
        className={LINK}
        title="The entries matching the filters, oldest first (up to 10,000; the API pages further)"
      >
        Download CSV
      </a>
      <a href={`/api/console/audit?${toAuditSearchParams(filter, { format: "jsonl" })}`} download className={LINK}>
        Download JSONL
      </a>
    </div>
  );
}
