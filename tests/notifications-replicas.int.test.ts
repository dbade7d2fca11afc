import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createChannel } from "../lib/notifications/channels";
import { refundAgent } from "./support/agents";
import { createPostgres } from "./support/global-setup";
import { createTestRuntime, grant, uid } from "./support/runtime";
import { kill } from "./support/spawn-worker";
import { worldTools } from "./support/tools";
import { until } from "./support/until";
import { startWorld, type World } from "./support/world";

// Two console processes run the notifications loop on one Postgres database, pass after pass: a packet
// opening on a queue with a channel reaches the receiver once, not once per process, and its delivery is
// recorded once, delivered at the first attempt. A database of its own: no other test's channels.

const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

type Notifier = { child: ChildProcess; passes: () => number };

function spawnNotifier(env: Record<string, string>): Notifier {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/notifier-process.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let passes = 0;
  child.stdout!.on("data", (d: Buffer) => {
    passes += (String(d).match(/^PASS /gm) ?? []).length;
  });
  return { child, passes: () => passes };
}

describe.runIf(inject("postgresUrl"))("notifications with two console processes [postgres]", () => {
  let database: { url: string; drop: () => void };
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const notifiers: Notifier[] = [];
  const received: string[] = [];
  const receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200).end();
  });

  const savedHosts = process.env.TETHER_TOOL_ALLOWED_HOSTS;

  beforeAll(async () => {
    process.env.TETHER_TOOL_ALLOWED_HOSTS = "127.0.0.1"; // the local receiver (the channel is checked against it here too)
    database = createPostgres(`tether_notify_${process.pid}_${Date.now()}`)!;
    world = await startWorld();
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    t = createTestRuntime(database.url, { tools: worldTools(world.url) });
  });
  afterAll(async () => {
    await Promise.all(notifiers.map((n) => kill(n.child)));
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await world.close();
    await t.close();
    database?.drop();
    if (savedHosts === undefined) delete process.env.TETHER_TOOL_ALLOWED_HOSTS;
    else process.env.TETHER_TOOL_ALLOWED_HOSTS = savedHosts;
  });

  it("a packet opening is sent once and recorded once, whichever process claims it", async () => {
    const queue = uid("finance");
    const { port } = receiver.address() as AddressInfo;
    await createChannel(
      t.db,
      { queue, kind: "slack", target: `http://127.0.0.1:${port}/hook`, events: ["packet.opened"] },
      { by: "admin@test" },
    );
    for (let i = 0; i < 2; i++)
      notifiers.push(spawnNotifier({ DATABASE_URL: database.url, TETHER_TOOL_ALLOWED_HOSTS: "127.0.0.1" }));
    await until("both processes make passes", () => notifiers.every((n) => n.passes() >= 2));

    const agent = refundAgent(uid("notify-refund"));
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, { "payments.refund": { conditions: [OVER_LIMIT], queue } });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents: 24_000, status: "paid" });
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { orderId, email: "bob@example.com" } });
    await t.runtime.createWorker().drain();
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });

    await until("the receiver is told", () => received.length > 0);
    // Both processes pass over it several more times: neither queues nor sends it again.
    const after = notifiers.map((n) => n.passes());
    await until("both processes make five more passes", () => notifiers.every((n, i) => n.passes() >= after[i] + 5));
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]).text).toContain(packet.content.impact);
    const deliveries = await t.db.notificationDelivery.findMany({ where: { packetId: packet.id } });
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([["delivered", 1]]);
  });
});
