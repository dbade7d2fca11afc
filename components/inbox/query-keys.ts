import { queryKeys } from "@/lib/query-keys";

// TODO move to lib/query-keys.ts: the packet page's live status (queryKeys.packets has list/count/detail;
// the status poll shares the detail key's prefix so invalidating a packet's detail also refreshes it).
export const packetStatusKey = (id: string) => [...queryKeys.packets.detail(id), "status"] as const;

export type PacketStatusSnapshot = {
  id: string;
  status: string;
  decidedBy: string | null;
  decidedAt: string | null;
  approvers: string[];
  requiredApprovals: number;
  assignee: string | null;
  queue: string;
  expiresAt: string | null;
  staleChanges: Array<{ key: string; before: unknown; after: unknown }> | null;
};

/** GET a console route as JSON; a non-2xx answer becomes an error carrying the route's message. */
export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store", headers: { accept: "application/json" } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `The server answered ${response.status}.`);
  }
  return (await response.json()) as T;
}
