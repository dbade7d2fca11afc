"use client";
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { fetchJson } from "@/lib/fetch-json";
import type { PacketChanges } from "@/lib/queries/packet-changes";
import { CHANGES_INTERVAL_MS, queryKeys } from "@/lib/query-keys";

// The inbox's change feed, polled once per tab however many views listen (one query key): a poll with
// nothing new is a few hundred bytes; news invalidates the packet queries, which re-read their page.
// TanStack Query stops polling while the tab is hidden, so a tab nobody looks at costs nothing.

let cursor: string | undefined;
/** "id:version" of the last poll's changes: a change stays in the feed for its overlap window, news is what the last poll did not report. */
let lastReported = new Set<string>();

async function poll(queryClient: QueryClient): Promise<PacketChanges> {
  const feed = await fetchJson<PacketChanges>(`/api/console/packets/changes${cursor ? `?since=${cursor}` : ""}`);
  const reported = new Set(feed.changes.map((change) => `${change.id}:${change.version}`));
  const hasNews = feed.more || [...reported].some((key) => !lastReported.has(key));
  // A packet page is loading (a person's "Load more"): invalidating now would cancel it and re-read only the
  // pages already shown. The news is left for the next poll, which reports it again (same cursor).
  if (hasNews && queryClient.isFetching({ queryKey: queryKeys.packets.all }) > 0) return feed;
  cursor = feed.cursor;
  lastReported = reported;
  if (hasNews) void queryClient.invalidateQueries({ queryKey: queryKeys.packets.all });
  return feed;
}

/** Subscribe this view to the change feed (mount it wherever packet queries should stay live). */
export function usePacketChanges() {
  const queryClient = useQueryClient();
  return useQuery({ queryKey: queryKeys.packetChanges(), queryFn: () => poll(queryClient), refetchInterval: CHANGES_INTERVAL_MS, retry: false });
}
