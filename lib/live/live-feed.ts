// What the console's live views hear in this process without asking the database: a run changed (a step
// committed, a decision, a transition, a claim), the packets changed, and the tokens of a model step while
// it runs. One hub per database per process (keyed by the database's URL, kept on globalThis so the
// instrumentation's runtime and the route handlers share it under Next). The store wrapper
// (live-store.ts) tells it after each commit; the model policy publishes tokens; the SSE routes listen.
//
// Nothing here is stored or replayed: a token is shown once, to whoever listens at that moment, and the
// committed step stays the record. Changes made by another process (a standalone worker) are not heard
// here; the streams read the database on a slow timer for those.
import { databaseUrlOf, type Db } from "@/lib/db";

export type TokenChunk = {
  /** The step the model is deciding (the step its model.decision event will carry). */
  step: number;
  /** The model's attempt within the step (a reply that could not be used is asked again). */
  attempt: number;
  /** "text": what the model writes; "tool": the arguments of a tool call as they arrive (name: the tool). */
  kind: "text" | "tool";
  name?: string;
  delta: string;
};

export type LiveFeed = {
  /** A run's committed state, trace or status changed. */
  runChanged(runId: string): void;
  /** Packets were opened, decided, assigned or expired. */
  packetsChanged(): void;
  /** A model step's tokens as they arrive (not stored). */
  publishTokens(runId: string, chunk: TokenChunk): void;
  onRun(runId: string, listener: (news: RunNews) => void): () => void;
  onPackets(listener: () => void): () => void;
  /** How many listeners are attached, to one run or in all (tests check that a closed stream leaves none behind). */
  listenerCount(runId?: string): number;
};

export type RunNews = { kind: "changed" } | { kind: "tokens"; chunk: TokenChunk };

/** Sinks a policy is given: where its tokens go. */
export type TokenSink = Pick<LiveFeed, "publishTokens">;

export function createLiveFeed(): LiveFeed {
  const runs = new Map<string, Set<(news: RunNews) => void>>();
  const packets = new Set<() => void>();
  const tellRun = (runId: string, news: RunNews) => {
    for (const listener of runs.get(runId) ?? []) safely(() => listener(news));
  };
  return {
    runChanged: (runId) => tellRun(runId, { kind: "changed" }),
    packetsChanged: () => {
      for (const listener of packets) safely(listener);
    },
    publishTokens: (runId, chunk) => tellRun(runId, { kind: "tokens", chunk }),
    onRun(runId, listener) {
      let set = runs.get(runId);
      if (!set) runs.set(runId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && runs.get(runId) === set) runs.delete(runId);
      };
    },
    onPackets(listener) {
      packets.add(listener);
      return () => void packets.delete(listener);
    },
    listenerCount: (runId) =>
      runId !== undefined
        ? (runs.get(runId)?.size ?? 0)
        : packets.size + [...runs.values()].reduce((sum, set) => sum + set.size, 0),
  };
}

function safely(fn: () => void) {
  try {
    fn();
  } catch {
    // a listener's failure is its own (a closed stream); the others still hear
  }
}

const globalForLive = globalThis as unknown as { tetherLiveFeeds?: Map<string, LiveFeed> };

/** The live feed of this database in this process: one per URL, so the console's runtime and its routes share it. */
export function liveFeedOf(db: Db): LiveFeed {
  const url = databaseUrlOf(db);
  if (!url) return createLiveFeed();
  const feeds = (globalForLive.tetherLiveFeeds ??= new Map());
  let feed = feeds.get(url);
  if (!feed) feeds.set(url, (feed = createLiveFeed()));
  return feed;
}
