"use client";
import { useQuery } from "@tanstack/react-query";
import type { InboxItem } from "@/lib/inbox/queue";
import { LIVE_INTERVAL_MS, queryKeys } from "@/lib/query-keys";
import { fetchJson } from "@/lib/fetch-json";

/** The pending packets, polled: packets that arrive or are decided elsewhere appear and vanish on their own. */
export function useInboxItems(initial: { items: InboxItem[]; at: number }) {
  const query = useQuery({
    queryKey: queryKeys.packets.list({}),
    queryFn: () => fetchJson<{ items: InboxItem[] }>("/api/console/packets"),
    initialData: { items: initial.items },
    initialDataUpdatedAt: initial.at,
    refetchInterval: LIVE_INTERVAL_MS,
  });
  // "now" is the moment of the data, so the server's render and the client's first one agree.
  return { items: query.data.items, now: new Date(query.dataUpdatedAt || initial.at), isError: query.isError, isFetching: query.isFetching };
}
