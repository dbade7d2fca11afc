"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { fetchJson } from "@/lib/fetch-json";
import { inboxFiltersToParams, type InboxFacets, type InboxFilters } from "@/lib/inbox/queue";
import type { InboxPage } from "@/lib/queries/inbox-page";
import { PACKETS_BACKSTOP_MS, queryKeys } from "@/lib/query-keys";
import { usePacketChanges } from "./use-packet-changes";

const NO_FACETS: InboxFacets = { agents: [], tools: [], capabilities: [], assignees: [], queues: [] };

function fetchPage(filters: InboxFilters, cursor: string | undefined): Promise<InboxPage> {
  const params = inboxFiltersToParams(filters);
  if (cursor) params.set("cursor", cursor);
  return fetchJson<InboxPage>(`/api/console/packets?${params}`);
}

/**
 * The inbox's pages for these filters, sorted and filtered on the server; more are loaded on demand.
 * The change feed keeps them live: when a packet opens or is decided anywhere, the loaded pages are read again.
 */
export function useInboxPages(filters: InboxFilters, initial: { page: InboxPage; filtersKey: string; at: number }) {
  usePacketChanges();
  const filtersKey = inboxFiltersToParams(filters).toString();
  const query = useInfiniteQuery({
    queryKey: queryKeys.packets.list({ filters: filtersKey }),
    queryFn: ({ pageParam }) => fetchPage(filters, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // The server rendered the first page of the URL's filters: no request until something changes.
    ...(filtersKey === initial.filtersKey
      ? { initialData: { pages: [initial.page], pageParams: [undefined] }, initialDataUpdatedAt: initial.at }
      : {}),
    // Fresh until the change feed says otherwise (its news invalidates): no re-read on mount of what the server just rendered.
    staleTime: PACKETS_BACKSTOP_MS,
    refetchInterval: PACKETS_BACKSTOP_MS,
  });
  const pages = query.data?.pages ?? [];
  const first = pages[0];
  return {
    items: pages.flatMap((page) => page.items),
    total: first?.total ?? 0,
    pending: first?.pending ?? 0,
    facets: first?.facets ?? NO_FACETS,
    // "now" is the moment the order was computed, so the server's render and the client's first one agree.
    now: new Date(first?.at ?? initial.page.at),
    hasMore: query.hasNextPage,
    loadMore: () => query.fetchNextPage(),
    isLoadingMore: query.isFetchingNextPage,
    isLoading: query.isPending,
    isError: query.isError,
  };
}
