import { randomUUID } from "node:crypto";
import { createDb, type Db } from "../../lib/db";
import type { DeployFinished } from "../../lib/sandbox/callbacks";
import { startSandboxServer, type SandboxServer } from "../../lib/sandbox/http-server";

// The sandbox world over real HTTP for tests: startSandboxServer on a test database, a recording deploy
// hook, a scripted random source (values are consumed in order; 0.99 when none are queued, which
// passes any errorRate below 0.99) and a small JSON client.

export type SandboxReply = { status: number; body: any; headers: Headers }; // eslint-disable-line @typescript-eslint/no-explicit-any

export type TestSandbox = {
  db: Db;
  server: SandboxServer;
  deliveries: DeployFinished[];
  randoms: number[];
  call: (
    method: string,
    path: string,
    init?: { body?: unknown; rawBody?: string; headers?: Record<string, string>; timeoutMs?: number },
  ) => Promise<SandboxReply>;
  close: () => Promise<void>;
};

export async function startTestSandbox(url: string): Promise<TestSandbox> {
  const db = createDb(url);
  const deliveries: DeployFinished[] = [];
  const randoms: number[] = [];
  const server = await startSandboxServer(db, {
    onDeployFinished: (event) => {
      deliveries.push(event);
    },
    random: () => randoms.shift() ?? 0.99,
  });
  const call: TestSandbox["call"] = async (method, path, init = {}) => {
    const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
    const res = await fetch(server.url + path, {
      method,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
      body,
      signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  return {
    db,
    server,
    deliveries,
    randoms,
    call,
    close: async () => {
      await server.close();
      await db.$disconnect();
    },
  };
}

/** A persisted order of its own, so tests can share the database. */
export async function createSandboxOrder(
  db: Db,
  overrides: Partial<{
    id: string;
    customerEmail: string;
    amountCents: number;
    cardLast4: string;
    createdAt: Date;
  }> = {},
) {
  const id = overrides.id ?? `ord_t${randomUUID().slice(0, 8)}`;
  return db.sandboxOrder.create({
    data: {
      id,
      customerEmail: overrides.customerEmail ?? `${id}@example.com`,
      customerName: "Test Customer",
      amountCents: overrides.amountCents ?? 24000,
      cardLast4: overrides.cardLast4 ?? "4242",
      status: "paid",
      createdAt: overrides.createdAt,
    },
  });
}
