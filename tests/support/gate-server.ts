import { createDb, type Db } from "../../lib/db";
import { getRuntime } from "../../lib/runtime.server";
import type { Worker } from "../../lib/runtime";
import { startRouteServer } from "./route-server";
import { createPersonWithToken } from "./tokens";
import { until } from "./until";

// A real Tether over HTTP for the open-gate clients' tests: the app's route handlers behind a node:http
// server, the app's runtime with a worker running in the background (as the console's embedded worker),
// a person who requests gates (an operator's gates:request token) and a different person who decides them.

export type GateServer = Awaited<ReturnType<typeof startGateServer>>;

export async function startGateServer(databaseUrl: string) {
  process.env.DATABASE_URL = databaseUrl;
  const db: Db = createDb(databaseUrl);
  const server = await startRouteServer();
  const runtime = getRuntime();
  // The people first: on the shared SQLite file a worker starting on the runs earlier test files left
  // behind holds the single writer for a while, and their inserts would wait out the busy timeout.
  const requester = await createPersonWithToken(db, { role: "operator", scopes: ["gates:request", "runs:read"] });
  const reviewer = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] });
  const worker: Worker = runtime.createWorker({ pollMs: 200 });
  worker.start();

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };

  /** The gate's decision packet, once Tether has made it (GET /api/gates/:id names it). */
  async function packetOf(gateId: string): Promise<string> {
    let packetId: string | null = null;
    let last: unknown;
    await until(
      `gate ${gateId} has a packet (last seen: ${JSON.stringify(last)})`,
      async () => {
        const { json } = await call("GET", `/api/gates/${gateId}`, requester.token);
        last = json;
        packetId = json.packetId ?? null;
        return packetId !== null;
      },
      30_000,
    );
    return packetId!;
  }

  return {
    url: server.url,
    db,
    runtime,
    requester,
    reviewer,
    call,
    packetOf,
    /** The reviewer decides through the decision API, with their own token. */
    async decideByApi(gateId: string, input: Record<string, unknown>) {
      const packetId = await packetOf(gateId);
      return call("POST", `/api/packets/${packetId}/decision`, reviewer.token, input);
    },
    /** Someone decides through runtime.decidePacket (the reviewer unless told otherwise). */
    async decide(gateId: string, input: Record<string, unknown>, by = reviewer.email) {
      return runtime.decidePacket({ packetId: await packetOf(gateId), reviewer: by, input });
    },
    async close() {
      await worker.stop({ graceMs: 5_000 });
      await server.close();
      await db.$disconnect();
    },
  };
}
