"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchJson } from "@/lib/fetch-json";
import { usePacketChanges } from "@/components/inbox/use-packet-changes";
import { PACKETS_BACKSTOP_MS, queryKeys } from "@/lib/query-keys";

const fetchCount = () => fetchJson<{ pending: number; mine: number }>("/api/console/packets/count");

/** The number of pending packets next to "Inbox", re-read when the change feed has news. It sits beside the link
 *  (positioned over it, clicks pass through) so the link's name stays "Inbox". */
export function InboxCount() {
  usePacketChanges();
  const { data } = useQuery({
    queryKey: queryKeys.packets.count(),
    queryFn: fetchCount,
    refetchInterval: PACKETS_BACKSTOP_MS,
  });
  if (!data) return null;
  const label = `${data.pending} pending${data.mine > 0 ? `, ${data.mine} assigned to you` : ""}`;
  return (
    <span
      title={label}
      data-testid="inbox-count"
      className={`pointer-events-none absolute top-1.5 right-2 rounded-full px-1.5 text-xs tabular-nums ${data.pending > 0 ? "bg-amber-400 text-zinc-950" : "bg-zinc-800 text-zinc-300"}`}
    >
      <span aria-hidden>{data.pending}</span>
      <span className="sr-only">({label})</span>
    </span>
  );
}
