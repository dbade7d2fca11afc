"use client";
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore } from "react";
import { fetchJson } from "@/lib/fetch-json";
import type { PacketChanges } from "@/lib/queries/packet-changes";
import { CHANGES_INTERVAL_MS, queryKeys } from "@/lib/query-keys";
import { withWorkspaceParam } from "@/lib/workspaces/paths";

// The inbox's change feed, once per tab however many views listen: streamed over Server-Sent Events
// (GET /api/console/packets/stream: a message only when something moved), and polled (…/changes, a few
// hundred bytes when nothing moved) while the stream is not open — no EventSource, refused, reconnecting.
// News invalidates the packet queries, which re-read their page. TanStack Query stops polling while the
// tab is hidden, so a tab nobody looks at costs nothing.

let cursor: string | undefined;
/** "id:version" of the last poll's changes: a change stays in the feed for its overlap window, news is what the last poll did not report. */
let lastReported = new Set<string>();

/** News for the packet queries; a packet page that is loading (a person's "Load more") is not cancelled: asked again shortly. */
function invalidateWhenIdle(queryClient: QueryClient) {
  if (queryClient.isFetching({ queryKey: queryKeys.packets.all }) > 0)
    return void setTimeout(() => invalidateWhenIdle(queryClient), 250);
  void queryClient.invalidateQueries({ queryKey: queryKeys.packets.all });
}

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

// ---- the tab's one stream, shared by every view that listens

const stream = { source: null as EventSource | null, users: 0, isOpen: false, listeners: new Set<() => void>() };
const setOpen = (isOpen: boolean) => {
  stream.isOpen = isOpen;
  for (const listener of stream.listeners) listener();
};

function openStream(queryClient: QueryClient): () => void {
  stream.users++;
  if (!stream.source && typeof EventSource !== "undefined") {
    const source = new EventSource(
      withWorkspaceParam(`/api/console/packets/stream${cursor ? `?since=${cursor}` : ""}`),
    );
    stream.source = source;
    source.onopen = () => setOpen(true);
    source.onerror = () => setOpen(false); // reconnecting, or refused for good: the poll takes over
    source.addEventListener("changes", (message) => {
      cursor = (message as MessageEvent<string>).lastEventId || cursor;
      invalidateWhenIdle(queryClient);
    });
  }
  return () => {
    if (--stream.users > 0) return;
    stream.source?.close();
    stream.source = null;
    setOpen(false);
  };
}

const subscribeOpen = (listener: () => void) => {
  stream.listeners.add(listener);
  return () => void stream.listeners.delete(listener);
};

/** Subscribe this view to the change feed (mount it wherever packet queries should stay live). */
export function usePacketChanges() {
  const queryClient = useQueryClient();
  useEffect(() => openStream(queryClient), [queryClient]);
  const isStreaming = useSyncExternalStore(
    subscribeOpen,
    () => stream.isOpen,
    () => false,
  );
  return useQuery({
    queryKey: queryKeys.packetChanges(),
    queryFn: () => poll(queryClient),
    refetchInterval: isStreaming ? false : CHANGES_INTERVAL_MS,
    retry: false,
  });
}
