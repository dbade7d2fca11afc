// Every TanStack Query key of the console, in one place, so a mutation invalidates exactly what it
// changed. Keys are arrays that start with their resource; a prefix invalidates everything under it.
export const queryKeys = {
  packets: {
    all: ["packets"] as const,
    list: (filters: Record<string, unknown>) => ["packets", "list", filters] as const,
    count: () => ["packets", "count"] as const,
    detail: (id: string) => ["packets", "detail", id] as const,
    /** the packet page's live status: under the detail key, so invalidating a packet refreshes it too */
    status: (id: string) => ["packets", "detail", id, "status"] as const,
  },
  /** The packets' change feed: outside "packets", so the invalidation it triggers does not poll it again. */
  packetChanges: () => ["packet-changes"] as const,
  runs: {
    all: ["runs"] as const,
    list: (filters: Record<string, unknown>) => ["runs", "list", filters] as const,
    detail: (id: string) => ["runs", "detail", id] as const,
    events: (id: string) => ["runs", "events", id] as const,
    /** What changes with each checkpoint (state, recovery, checkpoint list): one entry per (stateSeq, status). */
    snapshot: (id: string, at: { stateSeq: number; status: string; withState: boolean }) =>
      ["runs", "snapshot", id, at] as const,
  },
  evals: {
    all: ["evals"] as const,
    runs: () => ["evals", "runs"] as const,
    run: (id: string) => ["evals", "run", id] as const,
  },
} as const;

/** How often live views poll (ms): short enough to feel live, long enough to stay cheap. */
export const LIVE_INTERVAL_MS = 2_000;

/** How often the inbox's change feed is polled (ms): a quiet poll is a few hundred bytes, so a decision shows within a second. */
export const CHANGES_INTERVAL_MS = 500;

/** Packet lists re-read on the change feed's news; this slow poll only backs it up (a missed feed, a clock off). */
export const PACKETS_BACKSTOP_MS = 60_000;
