import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_HOLD_MS, resetFaults } from "../lib/sandbox/faults";
import { providers, uid } from "./support/runtime";
import { createSandboxOrder, startTestSandbox, type TestSandbox } from "./support/sandbox-world";

// The sandbox world over real HTTP (startSandboxServer serving the app's route handlers), on each database.

describe.each(providers())("sandbox world [%s]", (_provider, url) => {
  let w: TestSandbox;
  const effects = async (runId: string) =>
    (await w.call("GET", `/ledger?runId=${encodeURIComponent(runId)}`)).body.entries as Array<Record<string, unknown>>;
  const refund = (orderId: string, amountCents: number, key: string | null, runId = uid("run"), operationId?: string) =>
    w.call("POST", "/payments/refunds", {
      body: { orderId, amountCents },
      headers: {
        ...(key ? { "idempotency-key": key } : {}),
        "x-tether-run-id": runId,
        ...(operationId ? { "x-tether-operation-id": operationId } : {}),
      },
    });
  const order = async (id: string) => (await w.call("GET", `/orders/${id}`)).body;

  beforeAll(async () => {
    w = await startTestSandbox(url);
  });
  afterEach(async () => {
    await resetFaults(w.db);
    w.randoms.length = 0;
    w.deliveries.length = 0;
  });
  afterAll(async () => {
    await w.close();
  });

  it("reset seeds the starting world: orders, a customer's history newest first, docs, tickets", async () => {
    expect((await w.call("POST", "/reset")).status).toBe(200);
    expect(await w.call("GET", "/orders/ord_1001")).toMatchObject({
      status: 200,
      body: {
        id: "ord_1001",
        customerEmail: "ada@example.com",
        customerName: "Ada Lovelace",
        amountCents: 24000,
        currency: "usd",
        cardLast4: "4242",
        status: "paid",
        refundedCents: 0,
      },
    });
    const history = (await w.call("GET", "/customers/mallory%40example.com/orders")).body.orders;
    expect(history.map((o: { id: string }) => o.id)).toEqual(["ord_1004", "ord_0988", "ord_0972", "ord_0951"]);
    expect(history.filter((o: { status: string }) => o.status === "refunded")).toHaveLength(3);
    expect((await w.call("GET", "/customers/nobody@example.com/orders")).body).toEqual({ orders: [] });
    expect((await w.call("GET", "/docs")).body.docs).toHaveLength(3);
    expect((await w.call("GET", "/tickets/tkt_2001")).body).toMatchObject({
      id: "tkt_2001",
      customerEmail: "ada@example.com",
      status: "open",
    });
    expect((await w.call("GET", "/ledger")).body).toEqual({ entries: [] });
    expect(await w.call("GET", "/orders/ord_nope")).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
    expect(await w.call("GET", "/tickets/tkt_nope")).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
  });

  it("creates an order for a new customer (no refund history); a taken id is a conflict and bad input changes nothing", async () => {
    const created = await w.call("POST", "/orders", { body: { amountCents: 24_000 } });
    expect(created).toMatchObject({
      status: 201,
      body: {
        id: expect.stringMatching(/^ord_/),
        amountCents: 24_000,
        refundedCents: 0,
        status: "paid",
        currency: "usd",
      },
    });
    const { id, customerEmail } = created.body;
    expect((await w.call("GET", `/orders/${id}`)).body).toEqual(created.body);
    expect(
      (await w.call("GET", `/customers/${encodeURIComponent(customerEmail)}/orders`)).body.orders.map(
        (o: { id: string }) => o.id,
      ),
    ).toEqual([id]);
    expect((await w.call("POST", "/orders", { body: { id, amountCents: 100 } })).status).toBe(409);
    const badId = `ord_${uid("x")}`;
    expect((await w.call("POST", "/orders", { body: { id: badId, amountCents: -5 } })).status).toBe(400);
    expect((await w.call("GET", `/orders/${badId}`)).status).toBe(404);
  });

  describe("payments", () => {
    it("replays the same Idempotency-Key: same response, one effect, order updated once", async () => {
      const { id } = await createSandboxOrder(w.db);
      const runId = uid("run");
      const key = uid("key");
      const replies = [];
      for (let i = 0; i < 3; i++) replies.push(await refund(id, 5000, key, runId, "op-1"));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(replies[0].body).toEqual({
        refundId: expect.stringMatching(/^re_/),
        orderId: id,
        amountCents: 5000,
        status: "succeeded",
        cardLast4: "4242",
      });
      expect(replies[1].body).toEqual(replies[0].body);
      expect(replies[2].body).toEqual(replies[0].body);
      expect(replies.map((r) => r.headers.get("idempotent-replayed"))).toEqual([null, "true", "true"]);
      const entries = await effects(runId);
      expect(entries).toEqual([
        {
          system: "payments",
          action: "refund",
          runId,
          operationId: "op-1",
          at: expect.any(String),
          data: { ...replies[0].body, idempotencyKey: key },
        },
      ]);
      expect(await order(id)).toMatchObject({ refundedCents: 5000, status: "partially_refunded" });
    });

    it("applies one effect when requests with the same key race", async () => {
      const { id } = await createSandboxOrder(w.db);
      const runId = uid("run");
      const key = uid("key");
      const replies = await Promise.all(Array.from({ length: 5 }, () => refund(id, 1000, key, runId)));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(replies.map((r) => r.body.refundId)).size).toBe(1);
      expect(await effects(runId)).toHaveLength(1);
      expect((await effects(runId))[0].operationId).toBe(key); // no operation header: the key identifies it
      expect(await order(id)).toMatchObject({ refundedCents: 1000 });
    });

    it("refuses a key reused with other parameters (409) and applies nothing", async () => {
      const { id } = await createSandboxOrder(w.db);
      const runId = uid("run");
      const key = uid("key");
      expect((await refund(id, 1000, key, runId)).status).toBe(200);
      const reused = await refund(id, 2000, key, runId);
      expect(reused).toMatchObject({
        status: 409,
        body: { error: { code: "conflict", message: expect.stringContaining(key) } },
      });
      const asCharge = await w.call("POST", "/payments/charges", {
        body: { orderId: id, amountCents: 1000 },
        headers: { "idempotency-key": key, "x-tether-run-id": runId },
      });
      expect(asCharge.status).toBe(409);
      expect(await effects(runId)).toHaveLength(1);
      expect(await order(id)).toMatchObject({ refundedCents: 1000 });
    });

    it("declines refunding more than is left (402) without an effect; the decline replays", async () => {
      const { id } = await createSandboxOrder(w.db, { amountCents: 24000 });
      const runId = uid("run");
      const over = await refund(id, 24001, uid("key"), runId);
      expect(over).toMatchObject({
        status: 402,
        body: { error: { code: "declined", message: expect.stringContaining("$240.00") } },
      });
      const key = uid("key");
      expect((await refund(id, 20000, key, runId)).status).toBe(200);
      const declined = await refund(id, 5000, uid("key"), runId);
      expect(declined.status).toBe(402);
      expect((await refund(id, 4000, uid("key"), runId)).status).toBe(200);
      expect(await order(id)).toMatchObject({ refundedCents: 24000, status: "refunded" });
      const again = await refund(id, 1, uid("key"), runId);
      expect(again.body.error.message).toMatch(/already fully refunded/);
      expect((await effects(runId)).map((e) => e.data)).toEqual([
        expect.objectContaining({ amountCents: 20000 }),
        expect.objectContaining({ amountCents: 4000 }),
      ]);

      const stickyKey = uid("key");
      const first = await refund(id, 100, stickyKey, runId);
      const replay = await refund(id, 100, stickyKey, runId);
      expect([first.status, replay.status]).toEqual([402, 402]);
      expect(replay.body).toEqual(first.body);
    });

    it("rejects bad input with 400 and a clear message, and writes nothing", async () => {
      const { id } = await createSandboxOrder(w.db);
      const runId = uid("run");
      const keys: string[] = [];
      const send = (body: unknown, init: { rawBody?: string; key?: string | null } = {}) => {
        const key = init.key === undefined ? uid("key") : init.key;
        if (key) keys.push(key);
        return w.call("POST", "/payments/refunds", {
          body,
          rawBody: init.rawBody,
          headers: { ...(key ? { "idempotency-key": key } : {}), "x-tether-run-id": runId },
        });
      };
      const noKey = await send({ orderId: id, amountCents: 100 }, { key: null });
      expect(noKey).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_input", message: expect.stringContaining("Idempotency-Key") } },
      });
      const wrongType = await send({ orderId: id, amountCents: "100" });
      expect(wrongType).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_input", fields: { amountCents: [expect.any(String)] } } },
      });
      expect(wrongType.body.error.message).toMatch(/^Invalid request body: amountCents: /);
      expect((await send({ orderId: id, amountCents: -5 })).body.error.fields).toHaveProperty("amountCents");
      expect((await send({ orderId: id, amountCents: 1.5 })).status).toBe(400);
      expect((await send({ amountCents: 100 })).body.error.fields).toHaveProperty("orderId");
      expect((await send({ orderId: id, amountCents: 100, reason: "x" })).body.error.message).toMatch(/reason/);
      expect(await send(undefined, { rawBody: "{not json" })).toMatchObject({
        status: 400,
        body: { error: { message: "The request body must be JSON." } },
      });
      expect(await send([1, 2])).toMatchObject({ status: 400 });
      expect(await send({ orderId: "ord_missing", amountCents: 100 })).toMatchObject({
        status: 404,
        body: { error: { code: "not_found" } },
      });

      expect(await effects(runId)).toEqual([]);
      expect(await w.db.sandboxPayment.count({ where: { idempotencyKey: { in: keys } } })).toBe(0);
      expect(await order(id)).toMatchObject({ refundedCents: 0, status: "paid" });
    });

    it("charges with a key (replayable) and declines the •0002 card", async () => {
      const { id } = await createSandboxOrder(w.db);
      const declining = await createSandboxOrder(w.db, { cardLast4: "0002" });
      const runId = uid("run");
      const key = uid("key");
      const charge = () =>
        w.call("POST", "/payments/charges", {
          body: { orderId: id, amountCents: 999 },
          headers: { "idempotency-key": key, "x-tether-run-id": runId },
        });
      const [first, second] = [await charge(), await charge()];
      expect(first.body).toEqual({
        chargeId: expect.stringMatching(/^ch_/),
        orderId: id,
        amountCents: 999,
        status: "succeeded",
        cardLast4: "4242",
      });
      expect(second.body).toEqual(first.body);
      const declined = await w.call("POST", "/payments/charges", {
        body: { orderId: declining.id, amountCents: 999 },
        headers: { "idempotency-key": uid("key"), "x-tether-run-id": runId },
      });
      expect(declined).toMatchObject({ status: 402, body: { error: { code: "declined" } } });
      expect((await effects(runId)).map((e) => `${e.system}/${e.action}`)).toEqual(["payments/charge"]);
    });
  });

  describe("mail", () => {
    it("sends twice when asked twice (two effects); the sent folder finds the message by operation id", async () => {
      const runId = uid("run");
      const operationId = uid("op");
      const send = () =>
        w.call("POST", "/mail/send", {
          body: { to: "ada@example.com", subject: "Your refund", body: "We refunded $240.00." },
          headers: { "x-tether-run-id": runId, "x-tether-operation-id": operationId },
        });
      const [first, second] = [await send(), await send()];
      expect(first).toMatchObject({
        status: 200,
        body: {
          messageId: expect.stringMatching(/^msg_/),
          to: "ada@example.com",
          subject: "Your refund",
          sentAt: expect.any(String),
        },
      });
      expect(second.body.messageId).not.toBe(first.body.messageId);
      const entries = await effects(runId);
      expect(entries.map((e) => [`${e.system}/${e.action}`, e.operationId])).toEqual([
        ["mail/send", operationId],
        ["mail/send", operationId],
      ]);

      const found = await w.call("GET", `/mail/sent?operationId=${operationId}`);
      expect(found.body.message).toMatchObject({
        messageId: first.body.messageId,
        operationId,
        to: "ada@example.com",
        body: "We refunded $240.00.",
      });
      expect((await w.call("GET", `/mail/sent?operationId=${uid("op")}`)).body).toEqual({ message: null });
      expect(await w.call("GET", "/mail/sent")).toMatchObject({
        status: 400,
        body: { error: { fields: { operationId: [expect.any(String)] } } },
      });
    });

    it("rejects a bad address with 400 and sends nothing", async () => {
      const runId = uid("run");
      const bad = await w.call("POST", "/mail/send", {
        body: { to: "not-an-email", subject: "Hi", body: "x" },
        headers: { "x-tether-run-id": runId },
      });
      expect(bad).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_input", fields: { to: [expect.any(String)] } } },
      });
      expect(await effects(runId)).toEqual([]);
    });
  });

  describe("deploys", () => {
    it("starts a migration (202, unsafe), completes it and delivers the callback as many times as asked", async () => {
      const runId = uid("run");
      const started = await w.call("POST", "/deploys", { body: { migration: "0042_add_index", runId } });
      expect(started).toMatchObject({
        status: 202,
        body: { deployId: expect.stringMatching(/^dep_/), status: "running" },
      });
      const { deployId } = started.body;
      expect((await w.call("GET", `/deploys/${deployId}`)).body).toEqual({
        deployId,
        migration: "0042_add_index",
        status: "running",
        runId,
        startedAt: expect.any(String),
        completedAt: null,
      });

      const done = await w.call("POST", `/deploys/${deployId}/complete`, {
        body: { outcome: "succeeded", deliveries: 3 },
      });
      expect(done).toMatchObject({ status: 200, body: { deployId, status: "succeeded", delivered: 3 } });
      expect(w.deliveries).toEqual(
        Array(3).fill({ deployId, runId, outcome: "succeeded", migration: "0042_add_index" }),
      );
      expect((await w.call("GET", `/deploys/${deployId}`)).body).toMatchObject({
        status: "succeeded",
        completedAt: expect.any(String),
      });

      expect(await w.call("POST", `/deploys/${deployId}/complete`, { body: { outcome: "failed" } })).toMatchObject({
        status: 409,
        body: { error: { code: "conflict" } },
      });
      expect(w.deliveries).toHaveLength(3);
      expect((await effects(runId)).map((e) => `${e.system}/${e.action}`)).toEqual(["deploys/migrate"]);
    });

    it("has no idempotency: a repeated request is a second migration; run id may come from the header", async () => {
      const runId = uid("run");
      const start = () =>
        w.call("POST", "/deploys", { body: { migration: "0043_backfill" }, headers: { "x-tether-run-id": runId } });
      const [a, b] = [await start(), await start()];
      expect(a.body.deployId).not.toBe(b.body.deployId);
      expect(await effects(runId)).toHaveLength(2);
      await w.call("POST", `/deploys/${a.body.deployId}/complete`, { body: { outcome: "failed" } });
      expect(w.deliveries).toEqual([
        { deployId: a.body.deployId, runId, outcome: "failed", migration: "0043_backfill" },
      ]);
    });

    it("finds deploys by migration and by run, newest first; nothing found is an empty list", async () => {
      const runId = uid("run");
      const migration = `0050_${uid("m").replace("-", "_")}`;
      const start = (body: Record<string, unknown>) => w.call("POST", "/deploys", { body: { migration, ...body } });
      const first = (await start({ runId })).body.deployId;
      const other = (await start({ runId: uid("run") })).body.deployId;
      const second = (
        await w.call("POST", "/deploys", { body: { migration: "0051_other" }, headers: { "x-tether-run-id": runId } })
      ).body.deployId;
      await w.call("POST", `/deploys/${first}/complete`, { body: { outcome: "succeeded" } });
      const ids = async (query: string) =>
        (await w.call("GET", `/deploys?${query}`)).body.deploys.map((d: { deployId: string }) => d.deployId);

      expect(await ids(`runId=${runId}`)).toEqual([second, first]);
      expect(await ids(`migration=${migration}`)).toEqual([other, first]);
      expect(await ids(`migration=${migration}&runId=${runId}`)).toEqual([first]);
      expect((await w.call("GET", `/deploys?runId=${runId}&migration=0051_other`)).body).toEqual({
        deploys: [
          {
            deployId: second,
            migration: "0051_other",
            status: "running",
            runId,
            startedAt: expect.any(String),
            completedAt: null,
          },
        ],
      });
      expect((await w.call("GET", `/deploys?migration=${migration}&runId=${uid("run")}`)).body).toEqual({
        deploys: [],
      });
      expect(await w.call("GET", "/deploys")).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_input", fields: { migration: [expect.any(String)] } } },
      });
      // A read: it answers to the deploys knob, and applies nothing.
      await w.call("PUT", "/faults/deploys", { body: { errorRate: 1 } });
      expect((await w.call("GET", `/deploys?runId=${runId}`)).status).toBe(503);
      expect(await effects(runId)).toHaveLength(2);
    });

    it("holdDeploys is the deploys knob only; reset forgets it", async () => {
      const knob = await w.call("PUT", "/faults/deploys", { body: { holdDeploys: true } });
      expect(knob).toMatchObject({ status: 200, body: { system: "deploys", holdDeploys: true, timeoutAfterApply: 0 } });
      expect(
        (await w.call("GET", "/faults")).body.faults.find((f: { system: string }) => f.system === "deploys"),
      ).toMatchObject({ holdDeploys: true });
      // Other knobs of the system leave it alone.
      expect((await w.call("PUT", "/faults/deploys", { body: { latencyMs: 0 } })).body).toMatchObject({
        holdDeploys: true,
      });
      expect(await w.call("PUT", "/faults/mail", { body: { holdDeploys: true } })).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_input", fields: { holdDeploys: [expect.any(String)] } } },
      });
      expect((await w.call("PUT", "/faults/deploys", { body: { holdDeploys: "yes" } })).status).toBe(400);
      expect((await w.call("POST", "/reset")).status).toBe(200);
      expect(
        (await w.call("GET", "/faults")).body.faults.find((f: { system: string }) => f.system === "deploys"),
      ).toMatchObject({ holdDeploys: false });
    });

    it("validates completion and start", async () => {
      const { deployId } = (await w.call("POST", "/deploys", { body: { migration: "0044_x" } })).body;
      expect(
        (await w.call("POST", `/deploys/${deployId}/complete`, { body: { outcome: "succeeded", deliveries: 11 } })).body
          .error.fields,
      ).toHaveProperty("deliveries");
      expect((await w.call("POST", `/deploys/${deployId}/complete`, { body: { outcome: "maybe" } })).status).toBe(400);
      expect((await w.call("POST", "/deploys/dep_nope/complete", { body: { outcome: "succeeded" } })).status).toBe(404);
      expect((await w.call("GET", "/deploys/dep_nope")).status).toBe(404);
      expect((await w.call("POST", "/deploys", { body: { migration: "" } })).status).toBe(400);
      expect((await w.call("GET", `/deploys/${deployId}`)).body.status).toBe("running");
      expect(w.deliveries).toEqual([]);
    });
  });

  describe("docs, tickets and drafts", () => {
    it("searches docs case-insensitively; a PUT changes a source or publishes a new one", async () => {
      const id = `doc_${uid("t")}`;
      expect((await w.call("PUT", `/docs/${id}`, { body: { body: "orphan" } })).status).toBe(400);
      const created = await w.call("PUT", `/docs/${id}`, {
        body: { title: "Zebra launch", body: "The zebra ships Friday." },
      });
      expect(created).toMatchObject({
        status: 201,
        body: { id, title: "Zebra launch", body: "The zebra ships Friday.", updatedAt: expect.any(String) },
      });
      expect((await w.call("GET", "/docs?query=ZEBRA")).body.docs.map((d: { id: string }) => d.id)).toEqual([id]);
      const changed = await w.call("PUT", `/docs/${id}`, { body: { body: "The okapi ships Monday." } });
      expect(changed).toMatchObject({ status: 200, body: { title: "Zebra launch", body: "The okapi ships Monday." } });
      expect((await w.call("GET", "/docs?query=okapi")).body.docs).toHaveLength(1);
      expect((await w.call("GET", "/docs?query=friday")).body.docs).toEqual([]);
      expect((await w.call("PUT", "/docs/bad%20id", { body: { title: "x", body: "y" } })).status).toBe(400);
    });

    it("creates a draft once per key; the same key with other content is a conflict", async () => {
      const runId = uid("run");
      const key = uid("key");
      const draft = (content: unknown) =>
        w.call("POST", "/drafts", {
          body: { kind: "email", content },
          headers: { "idempotency-key": key, "x-tether-run-id": runId },
        });
      const [a, b] = [
        await draft({ to: "ada@example.com", body: "Hello" }),
        await draft({ to: "ada@example.com", body: "Hello" }),
      ];
      expect(a).toMatchObject({ status: 200, body: { draftId: expect.stringMatching(/^dft_/) } });
      expect(b.body).toEqual(a.body);
      expect((await draft({ to: "ada@example.com", body: "Other" })).status).toBe(409);
      expect((await w.call("POST", "/drafts", { body: { kind: "email", content: "x" } })).status).toBe(400);
      expect(
        (
          await w.call("POST", "/drafts", {
            body: { kind: "fax", content: "x" },
            headers: { "idempotency-key": uid("key") },
          })
        ).status,
      ).toBe(400);
      expect((await effects(runId)).map((e) => `${e.system}/${e.action}`)).toEqual(["drafts/create"]);
    });
  });

  describe("faults", () => {
    it("errorRate 1 answers 503 before applying anything", async () => {
      const { id } = await createSandboxOrder(w.db);
      const runId = uid("run");
      expect((await w.call("PUT", "/faults/payments", { body: { errorRate: 1 } })).body).toMatchObject({
        system: "payments",
        errorRate: 1,
      });
      const key = uid("key");
      expect(await refund(id, 1000, key, runId)).toMatchObject({
        status: 503,
        body: { error: { code: "unavailable" } },
      });
      expect((await w.call("GET", `/orders/${id}`)).status).toBe(503);
      expect(await effects(runId)).toEqual([]);
      await w.call("PUT", "/faults/payments", { body: { errorRate: 0 } });
      expect(await order(id)).toMatchObject({ refundedCents: 0 });
      expect((await refund(id, 1000, key, runId)).status).toBe(200); // the same key still works: nothing was stored
      expect(await effects(runId)).toHaveLength(1);
    });

    it("draws injected errors from the injected random source", async () => {
      await w.call("PUT", "/faults/mail", { body: { errorRate: 0.5 } });
      w.randoms.push(0.2, 0.7);
      const send = () => w.call("POST", "/mail/send", { body: { to: "ben@example.com", subject: "s", body: "b" } });
      expect((await send()).status).toBe(503);
      expect((await send()).status).toBe(200);
    });

    it("timeoutAfterApply: the effect is applied, the client's timeout fires first; an idempotent retry gets the receipt", async () => {
      const { id } = await createSandboxOrder(w.db);
      const runId = uid("run");
      const key = uid("key");
      const knob = await w.call("PUT", "/faults/payments", { body: { timeoutAfterApply: 1, holdMs: 3_000 } });
      expect(knob.body).toEqual({
        system: "payments",
        latencyMs: 0,
        errorRate: 0,
        timeoutAfterApply: 1,
        holdMs: 3_000,
      });
      const lost = w.call("POST", "/payments/refunds", {
        body: { orderId: id, amountCents: 1500 },
        headers: { "idempotency-key": key, "x-tether-run-id": runId },
        timeoutMs: 500,
      });
      await expect(lost).rejects.toMatchObject({ name: "TimeoutError" });

      const [applied] = await effects(runId);
      expect(applied).toMatchObject({ system: "payments", action: "refund", data: { amountCents: 1500 } });
      expect(await order(id)).toMatchObject({ refundedCents: 1500 });
      expect(
        (await w.call("GET", "/faults")).body.faults.find((f: { system: string }) => f.system === "payments"),
      ).toMatchObject({ timeoutAfterApply: 0 });

      const retry = await refund(id, 1500, key, runId);
      expect(retry).toMatchObject({ status: 200, body: { refundId: (applied.data as { refundId: string }).refundId } });
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(await effects(runId)).toHaveLength(1);
    });

    it("timeoutAfterApply: after holdMs the connection is dropped without an HTTP answer; the sent folder shows the mail went", async () => {
      const runId = uid("run");
      const operationId = uid("op");
      await w.call("PUT", "/faults/mail", { body: { timeoutAfterApply: 1, holdMs: 300 } });
      const started = Date.now();
      const lost = w.call("POST", "/mail/send", {
        body: { to: "grace@example.com", subject: "Release 4.2", body: "Scheduled exports are here." },
        headers: { "x-tether-run-id": runId, "x-tether-operation-id": operationId },
        timeoutMs: 5_000,
      });
      await expect(lost).rejects.toThrow(/fetch failed/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(await effects(runId)).toHaveLength(1);
      expect((await w.call("GET", `/mail/sent?operationId=${operationId}`)).body.message).toMatchObject({
        to: "grace@example.com",
      });
      // The knob is used up: the next send is answered.
      expect(
        (await w.call("POST", "/mail/send", { body: { to: "grace@example.com", subject: "s", body: "b" } })).status,
      ).toBe(200);
    });

    it("latencyMs delays every request of the system", async () => {
      await w.call("PUT", "/faults/docs", { body: { latencyMs: 250 } });
      const started = Date.now();
      expect((await w.call("GET", "/docs?query=refund")).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    });

    it("lists every system's knobs and validates the knob routes", async () => {
      const { faults } = (await w.call("GET", "/faults")).body;
      expect(faults.map((f: { system: string }) => f.system)).toEqual([
        "payments",
        "mail",
        "deploys",
        "docs",
        "tickets",
        "drafts",
      ]);
      expect(faults[0]).toEqual({
        system: "payments",
        latencyMs: 0,
        errorRate: 0,
        timeoutAfterApply: 0,
        holdMs: DEFAULT_HOLD_MS,
      });
      expect(await w.call("PUT", "/faults/orders", { body: { errorRate: 1 } })).toMatchObject({
        status: 404,
        body: { error: { code: "not_found", message: expect.stringContaining("payments") } },
      });
      expect((await w.call("PUT", "/faults/mail", { body: { errorRate: 2 } })).body.error.fields).toHaveProperty(
        "errorRate",
      );
      expect((await w.call("PUT", "/faults/mail", { body: { latencyMs: -1 } })).status).toBe(400);
      expect((await w.call("GET", "/faults")).body.faults[1]).toMatchObject({ errorRate: 0, latencyMs: 0 });
    });
  });

  it("filters the ledger by run", async () => {
    const [runA, runB] = [uid("run"), uid("run")];
    const { id } = await createSandboxOrder(w.db);
    await refund(id, 100, uid("key"), runA);
    await refund(id, 200, uid("key"), runB);
    await w.call("POST", "/mail/send", {
      body: { to: "ben@example.com", subject: "s", body: "b" },
      headers: { "x-tether-run-id": runA },
    });
    expect((await effects(runA)).map((e) => `${e.system}/${e.action}`)).toEqual(["payments/refund", "mail/send"]);
    expect((await effects(runB)).map((e) => e.data)).toEqual([expect.objectContaining({ amountCents: 200 })]);
    expect((await w.call("GET", `/ledger?runId=${runA}&system=mail`)).body.entries).toHaveLength(1);
  });

  it("answers unknown routes with 404 and wrong methods with 405, as JSON", async () => {
    expect(await w.call("GET", "/nope")).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    const wrong = await w.call("DELETE", "/orders/ord_1001");
    expect(wrong).toMatchObject({ status: 405, body: { error: { code: "method_not_allowed" } } });
    expect(wrong.headers.get("allow")).toBe("GET");
  });
});
