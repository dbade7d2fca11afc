"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { statusLabel } from "@/components/ui/status-badge";
import { LIVE_INTERVAL_MS, queryKeys } from "@/lib/query-keys";
import { fetchJson } from "@/lib/fetch-json";
import type { PacketStatusSnapshot } from "./packet-status";

type PacketLiveStatusProps = {
  packetId: string;
  initial: Pick<PacketStatusSnapshot, "status" | "approvers" | "assignee" | "queue">;
};

/** Watches the packet while it is open; when someone else decides, assigns or approves it, the page refreshes and says so. */
export function PacketLiveStatus({ packetId, initial }: PacketLiveStatusProps) {
  const router = useRouter();
  const [wasPending] = useState(initial.status === "PENDING");
  const { data } = useQuery({
    queryKey: queryKeys.packets.status(packetId),
    queryFn: () => fetchJson<PacketStatusSnapshot>(`/api/console/packets/${encodeURIComponent(packetId)}`),
    refetchInterval: (query) => (query.state.data && query.state.data.status !== "PENDING" ? false : LIVE_INTERVAL_MS),
  });
  const fingerprint = data ? `${data.status}|${data.approvers.join(",")}|${data.assignee ?? ""}|${data.queue}` : null;
  const initialFingerprint = `${initial.status}|${initial.approvers.join(",")}|${initial.assignee ?? ""}|${initial.queue}`;
  useEffect(() => {
    if (fingerprint && fingerprint !== initialFingerprint) router.refresh();
  }, [fingerprint, initialFingerprint, router]);

  if (!data || !wasPending || data.status === "PENDING") return null;
  return (
    <div role="status" className="mb-4 rounded border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-950">
      This packet was decided while you had it open: {statusLabel(data.status).toLowerCase()}
      {data.decidedBy ? ` by ${data.decidedBy}` : ""}.
    </div>
  );
}
