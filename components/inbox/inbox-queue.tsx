"use client";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { useWorkspaceHref } from "@/components/shell/console-links";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadingRows } from "@/components/ui/loading";
import { Button } from "@/components/ui/button";
import { inboxFiltersToParams, parseInboxFilters, type InboxFilters, type InboxItem } from "@/lib/inbox/queue";
import type { InboxPage } from "@/lib/queries/inbox-page";
import { LIST_SHORTCUTS } from "@/lib/inbox/shortcuts";
import { BulkDecide } from "./bulk-decide";
import { InboxFiltersBar } from "./inbox-filters";
import { InboxRow } from "./inbox-row";
import { QuickDecideDialog, useQuickDecide, type QuickDecision, type QuickResult } from "./quick-decide";
import { ShortcutLegend } from "./shortcut-legend";
import { useInboxPages } from "./use-inbox-pages";
import { useShortcuts } from "./use-shortcuts";

type InboxQueueProps = {
  initialPage: InboxPage;
  initialFiltersKey: string;
  initialAt: number;
  me: string;
  canDecide: boolean;
};

/**
 * The live queue: sorted, filtered and paged on the server (filters in the URL), more pages on demand;
 * j/k/Enter to move and open (j past the last loaded packet loads the next page), a/e/r/d to decide,
 * x and checkboxes for bulk (the selection holds across pages).
 */
export function InboxQueue({ initialPage, initialFiltersKey, initialAt, me, canDecide }: InboxQueueProps) {
  const router = useRouter();
  const inWorkspace = useWorkspaceHref();
  const searchParams = useSearchParams();
  const filters = useMemo(() => parseInboxFilters(new URLSearchParams(searchParams.toString())), [searchParams]);
  const {
    items: shown,
    total,
    pending,
    facets,
    now,
    hasMore,
    loadMore,
    isLoadingMore,
    isLoading,
    isError,
  } = useInboxPages(filters, { page: initialPage, filtersKey: initialFiltersKey, at: initialAt });

  const [cursorId, setCursorId] = useState<string | null>(null);
  const [checked, setChecked] = useState<Set<string>>(new Set());
  const [quick, setQuick] = useState<QuickDecision | null>(null);
  const [result, setResult] = useState<QuickResult | null>(null);
  const { send, isPending } = useQuickDecide(setResult);

  const cursorIndex = Math.max(
    0,
    shown.findIndex((item) => item.id === cursorId),
  );
  const cursor = shown[cursorIndex] ?? null;
  const selected = shown.filter((item) => checked.has(item.id));

  useEffect(() => {
    if (cursor) document.querySelector(`[data-cursor]`)?.scrollIntoView({ block: "nearest" });
  }, [cursor]);

  function setFilters(next: InboxFilters) {
    const query = inboxFiltersToParams(next).toString();
    // replaceState keeps the filters in the URL without a server round trip (Next syncs useSearchParams).
    window.history.replaceState(null, "", query ? `/inbox?${query}` : "/inbox");
  }
  function move(delta: number) {
    if (shown.length === 0) return;
    if (cursorIndex + delta >= shown.length && hasMore && !isLoadingMore) void loadMore();
    setCursorId(shown[Math.min(shown.length - 1, Math.max(0, cursorIndex + delta))].id);
  }
  function toggle(id: string, on: boolean) {
    setChecked((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }
  const open = (item: InboxItem, decide?: string) =>
    router.push(inWorkspace(`/inbox/${encodeURIComponent(item.id)}${decide ? `?decide=${decide}` : ""}`));
  const approve = (item: InboxItem) =>
    item.impactLevel === "high" ? setQuick({ item, decision: "approve" }) : send(item, { decision: "approve" });
  const decidable = canDecide && cursor && !isPending;
  useShortcuts({
    j: () => move(1),
    k: () => move(-1),
    Enter: cursor ? () => open(cursor) : undefined,
    // An unknown outcome has no approve or reject: its packet page asks what the system shows.
    a: decidable ? () => (cursor.kind === "UNKNOWN_OUTCOME" ? open(cursor) : approve(cursor)) : undefined,
    e: decidable ? () => open(cursor, cursor.kind === "UNKNOWN_OUTCOME" ? undefined : "edit") : undefined,
    r: decidable
      ? () => (cursor.kind === "UNKNOWN_OUTCOME" ? open(cursor) : setQuick({ item: cursor, decision: "reject" }))
      : undefined,
    d: decidable ? () => setQuick({ item: cursor, decision: "redirect" }) : undefined,
    x: canDecide && cursor ? () => toggle(cursor.id, !checked.has(cursor.id)) : undefined,
  });

  const isFiltered = inboxFiltersToParams({ ...filters, sort: "urgency" }).toString() !== "";
  return (
    <>
      <InboxFiltersBar filters={filters} facets={facets} me={me} onChange={setFilters} />
      {isError && (
        <p role="alert" className="mb-3 text-sm text-red-800">
          The inbox could not be refreshed; it retries on its own.
        </p>
      )}
      {result && (
        <p
          role={result.tone === "error" ? "alert" : "status"}
          className={`mb-3 rounded border px-3 py-2 text-sm ${result.tone === "error" ? "border-red-300 bg-red-50 text-red-900" : "border-emerald-300 bg-emerald-50 text-emerald-900"}`}
        >
          {result.message}
        </p>
      )}
      {canDecide && (
        <BulkDecide
          selected={selected}
          onClear={() => setChecked(new Set())}
          onDecided={(ids) => setChecked((c) => new Set([...c].filter((id) => !ids.includes(id))))}
        />
      )}
      <p aria-live="polite" className="mb-2 text-xs text-zinc-600">
        {isFiltered
          ? `${shown.length} of ${total} matching packet${total === 1 ? "" : "s"} shown · ${pending} pending in all`
          : `${shown.length} of ${total} pending packet${total === 1 ? "" : "s"} shown`}
      </p>
      {isLoading ? (
        <LoadingRows label="Loading the inbox" />
      ) : pending === 0 ? (
        <EmptyState title="Nothing to decide">
          When an agent needs approval for an action, its decision packet appears here on its own.
        </EmptyState>
      ) : shown.length === 0 ? (
        <EmptyState title="No packet matches these filters">
          {isFiltered && (
            <button
              type="button"
              onClick={() => setFilters({ sort: filters.sort })}
              className="text-blue-700 underline focus-visible:outline-2 focus-visible:outline-blue-600"
            >
              Clear the filters
            </button>
          )}
        </EmptyState>
      ) : (
        <>
          <ul aria-label="Pending packets" className="space-y-2">
            {shown.map((item) => (
              <InboxRow
                key={item.id}
                item={item}
                now={now}
                me={me}
                canDecide={canDecide}
                isCursor={cursor?.id === item.id}
                isChecked={checked.has(item.id)}
                onCheck={(on) => toggle(item.id, on)}
                onFocusRow={() => setCursorId(item.id)}
              />
            ))}
          </ul>
          {hasMore && (
            <div className="mt-3 flex justify-center">
              <Button variant="secondary" onClick={() => void loadMore()} disabled={isLoadingMore}>
                {isLoadingMore ? "Loading…" : `Load more (${total - shown.length} more)`}
              </Button>
            </div>
          )}
        </>
      )}
      <ShortcutLegend shortcuts={LIST_SHORTCUTS} />
      <QuickDecideDialog
        pending={quick}
        isBusy={isPending}
        onCancel={() => setQuick(null)}
        onSend={(text) => {
          if (!quick) return;
          const { item, decision } = quick;
          send(
            item,
            decision === "approve"
              ? { decision }
              : decision === "reject"
                ? { decision, reason: text }
                : { decision, instruction: text },
            () => setQuick(null),
          );
        }}
      />
    </>
  );
}
