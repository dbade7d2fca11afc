import pg from "pg";
import type { Logger } from "@/lib/runtime/types";
import type { RunnableListener, Wakeup } from "@/lib/runtime/store";

// Wake-ups: a run became runnable (started, decided, signalled, given back) or got a timer, and a
// worker should hear of it now instead of at its next poll.
// - In the same process, the store calls its listeners right after the change commits.
// - Across processes (Postgres), the change's own transaction sends NOTIFY on CHANNEL (see
//   `notifySql`), so a rolled-back change wakes nobody and a committed one cannot lose its message
//   to a crash between commit and send; a LISTEN connection per process fans it out to the listeners.
// Polling stays as the fallback for a dropped LISTEN connection.

export const CHANNEL = "tether_runnable";
const ECHO_WINDOW_MS = 250; // a NOTIFY comes back within milliseconds

/** The NOTIFY payload: "<runId>" (runnable now) or "<runId> <runnableAt ms>" (a timer). */
export const wakeupPayload = (w: Wakeup) => (w.at ? `${w.runId} ${w.at.getTime()}` : w.runId);

function parsePayload(payload: string | undefined): Wakeup {
  const [runId, at] = (payload ?? "").split(" ");
  return { ...(runId ? { runId } : {}), ...(at ? { at: new Date(Number(at)) } : {}) };
}

/** A scalar SQL expression that sends one NOTIFY (its value is 1); `payload` is a SQL text expression. */
export const notifySql = (payload: string) =>
  `(SELECT count(*)::int FROM (SELECT pg_notify('${CHANNEL}', ${payload})) AS n)`;

export type Wakeups = {
  emit: (w: Wakeup) => void;
  subscribe: (listener: RunnableListener) => () => void;
  close: () => Promise<void>;
};

export function createWakeups(opts: { listenUrl?: string; logger?: Logger }): Wakeups {
  const listeners = new Set<RunnableListener>();
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = 250;

  // A change made here reaches this process twice: at once (emit), and as its own NOTIFY heard back
  // on the LISTEN connection — in either order. The second of such a pair, within a moment, is
  // dropped: it would only wake the listeners again for the same news.
  const firstOfPair = new Map<string, { from: "emit" | "listen"; at: number }>();
  const tell = (w: Wakeup) => {
    for (const listener of listeners) {
      try {
        listener(w);
      } catch (error) {
        opts.logger?.warn("wake-up listener failed", { error: String(error) });
      }
    }
  };
  const arrive = (w: Wakeup, from: "emit" | "listen") => {
    if (!opts.listenUrl || !w.runId) return tell(w);
    const key = `${w.runId} ${w.at?.getTime() ?? ""}`;
    const now = Date.now();
    const first = firstOfPair.get(key);
    if (first && first.from !== from && now - first.at <= ECHO_WINDOW_MS) {
      firstOfPair.delete(key);
      return;
    }
    if (firstOfPair.size > 10_000)
      for (const [k, v] of firstOfPair) if (now - v.at > ECHO_WINDOW_MS) firstOfPair.delete(k);
    firstOfPair.set(key, { from, at: now });
    tell(w);
  };
  const emit = (w: Wakeup) => arrive(w, "emit");

  async function listen() {
    if (!opts.listenUrl || closed || client) return;
    const c = new pg.Client({ connectionString: opts.listenUrl });
    client = c;
    c.on("notification", (n) => arrive(parsePayload(n.payload), "listen"));
    c.on("error", (error) => reconnect(c, error));
    c.on("end", () => reconnect(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      retryMs = 250;
      tell({}); // anything may have happened while we were not listening: look once
    } catch (error) {
      reconnect(c, error);
    }
  }

  function reconnect(c: pg.Client, error?: unknown) {
    if (client !== c) return;
    client = null;
    c.removeAllListeners("end");
    c.end().catch(() => {});
    if (closed || listeners.size === 0) return;
    opts.logger?.warn("wake-up connection lost; polling until it is back", {
      error: error ? String(error) : "ended",
      retryMs,
    });
    setTimeout(() => void listen(), retryMs).unref();
    retryMs = Math.min(retryMs * 2, 10_000);
  }

  return {
    emit,
    subscribe(listener) {
      listeners.add(listener);
      void listen();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && client) {
          const c = client;
          client = null;
          c.removeAllListeners("end");
          c.end().catch(() => {});
        }
      };
    },
    async close() {
      closed = true;
      listeners.clear();
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners("end");
        await c.end().catch(() => {});
      }
    },
  };
}

/** NOTIFY from inside a Prisma transaction (Postgres only: SQLite has one process, and emit serves it). */
export async function notifyInTransaction(
  tx: { $queryRawUnsafe: (sql: string, ...values: unknown[]) => Promise<unknown> },
  postgres: boolean,
  w: Wakeup,
) {
  if (postgres) await tx.$queryRawUnsafe(`SELECT ${notifySql("$1::text")} AS "notified"`, wakeupPayload(w));
}
