import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as webhookRoute } from "../app/api/webhooks/[source]/route";
import {
  decodeWebhookSecret,
  mayDeliverSignalType,
  parseWebhookSecrets,
  parseWebhookSignalTypes,
  parseWebhookTolerance,
} from "../lib/webhooks/config";
import { loadConfig } from "../lib/config";
import {
  checkWebhookSignature,
  checkWebhookTimestamp,
  readWebhookHeaders,
  signWebhook,
} from "../lib/webhooks/signature";
import { createRun } from "./support/contract/builders";
import { createTestRuntime, providers, uid } from "./support/runtime";

// Security (docs/security.md): real systems call back through a signed webhook route, `POST /api/webhooks/:source`
// (Standard Webhooks: HMAC-SHA256 over `id.timestamp.body`, a per-source `whsec_` secret, a timestamp
// tolerance), and a verified call becomes a run signal, de-duplicated by webhook-id. The route handler
// is called as Next.js calls it; the signal is checked in the database.

const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const keyOf = (s: string) => decodeWebhookSecret(s)!;
const ENV_KEYS = [
  "TETHER_WEBHOOK_SECRETS",
  "TETHER_WEBHOOK_SIGNAL_TYPES",
  "TETHER_WEBHOOK_TOLERANCE_SECONDS",
  "TETHER_MAX_BODY_BYTES",
  "DATABASE_URL",
] as const;

describe("the Standard Webhooks scheme", () => {
  it("reproduces the specification's published test vector, and verifies it", () => {
    const key = keyOf("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    const body = '{"test": 2432232314}';
    const signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    expect(signWebhook(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)).toBe(signature);
    const headers = readWebhookHeaders(
      new Headers({
        "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "webhook-timestamp": "1614265330",
        "webhook-signature": signature,
      }),
    );
    expect(() => checkWebhookSignature(headers, new TextEncoder().encode(body), [key])).not.toThrow();
    expect(() => checkWebhookSignature(headers, new TextEncoder().encode('{"test":2432232314}'), [key])).toThrow(
      /No webhook-signature matches/,
    );
  });
});

describe("TETHER_WEBHOOK_SECRETS and TETHER_WEBHOOK_TOLERANCE_SECONDS", () => {
  it("reads <source>=whsec_<base64> entries separated by commas or whitespace; a source may have several secrets", () => {
    const [a, b, c] = [secret(), secret(), secret()];
    const sources = parseWebhookSecrets(` github=${a}, deploys=${b}\ndeploys=${c} `);
    expect([...sources.keys()]).toEqual(["github", "deploys"]);
    expect(sources.get("github")).toEqual([keyOf(a)]);
    expect(sources.get("deploys")).toEqual([keyOf(b), keyOf(c)]);
    expect(parseWebhookSecrets(undefined).size).toBe(0);
    expect(parseWebhookSecrets("  ").size).toBe(0);
    expect(keyOf(a)).toHaveLength(32);
  });

  it("refuses malformed entries with a message that never shows the secret", () => {
    const short = `whsec_${randomBytes(16).toString("base64")}`;
    for (const [raw, message] of [
      ["github", /entry 1: expected <source>=whsec_<base64>/],
      [`GitHub=${secret()}`, /entry 1: expected/],
      [`ok=${secret()},bad name=${secret()}`, /entry 2: expected/], // the space splits it: "bad" has no "="
      [
        `github=${short}`,
        /entry 1 \(github\): the secret must be "whsec_" followed by the base64 of 24 to 64 random bytes/,
      ],
      ["github=sk_live_notawebhooksecret000000000000", /entry 1 \(github\): the secret must be/],
      ["github=whsec_!!!!notbase64!!!!notbase64!!!!notbase64", /entry 1 \(github\): the secret must be/],
    ] as const) {
      expect(() => parseWebhookSecrets(raw), raw).toThrow(message);
      const thrown = (() => {
        try {
          parseWebhookSecrets(raw);
        } catch (e) {
          return String(e);
        }
      })();
      for (const value of raw.split(/[=,]/).filter((v) => v.length > 20)) expect(thrown).not.toContain(value);
    }
    expect(parseWebhookTolerance(undefined)).toBe(300);
    const at = new Date("2025-06-01T12:00:00.900Z");
    const seconds = Math.floor(at.getTime() / 1000);
    for (const ok of [seconds - 300, seconds, seconds + 300])
      expect(() => checkWebhookTimestamp(ok, at, 300)).not.toThrow();
    for (const bad of [seconds - 301, seconds + 301, 0])
      expect(() => checkWebhookTimestamp(bad, at, 300)).toThrow(/more than 300 seconds/);
    expect(parseWebhookTolerance("60")).toBe(60);
    for (const bad of ["0", "-1", "1.5", "5m", "100000"])
      expect(() => parseWebhookTolerance(bad), bad).toThrow(/TETHER_WEBHOOK_TOLERANCE_SECONDS/);
  });
});

describe("TETHER_WEBHOOK_SIGNAL_TYPES", () => {
  const sources = parseWebhookSecrets(`deploys=${secret()},github=${secret()},ci=${secret()}`);

  it("reads <source>=<type>|<type>… entries, or <source>=*; a source without an entry may deliver no type", () => {
    const signalTypes = parseWebhookSignalTypes(" deploys=deploy.finished|deploy.failed,\ngithub=* ", sources);
    const may = (source: string, type: string) => mayDeliverSignalType({ signalTypes }, source, type);
    expect(may("deploys", "deploy.finished")).toBe(true);
    expect(may("deploys", "deploy.failed")).toBe(true);
    expect(may("deploys", "approval.granted")).toBe(false);
    expect(may("deploys", "Deploy.finished")).toBe(false); // types match exactly, as runs wait on them
    expect(may("deploys", "deploy.*")).toBe(false);
    expect(may("github", "anything.at.all")).toBe(true);
    expect(may("ci", "deploy.finished")).toBe(false); // a secret, but no entry
    expect(may("stripe", "deploy.finished")).toBe(false);
    expect(parseWebhookSignalTypes(undefined, sources).size).toBe(0);
  });

  it("refuses malformed entries, a source the secrets do not name, and a source named twice", () => {
    for (const [raw, message] of [
      ["deploys", /entry 1: expected <source>=<type>\|<type>… or <source>=\*/],
      ["Deploys=deploy.finished", /entry 1: expected/],
      ["deploys=deploy.finished,deplyos=deploy.failed", /entry 2: no source "deplyos" in TETHER_WEBHOOK_SECRETS/],
      ["deploys=deploy.finished,deploys=deploy.failed", /entry 2: source "deploys" is named twice/],
      ["deploys=", /entry 1 \(deploys\): "" is not a signal type/],
      ["deploys=deploy.finished||deploy.failed", /entry 1 \(deploys\): "" is not a signal type/],
      ["deploys=deploy.*", /entry 1 \(deploys\): "deploy\.\*" is not a signal type .*"\*" alone allows any type/],
      ["deploys=*|deploy.finished", /"\*" is not a signal type/],
      [`deploys=${"x".repeat(101)}`, /is not a signal type/],
    ] as const) {
      expect(() => parseWebhookSignalTypes(raw, sources), raw).toThrow(message);
    }
    expect(() =>
      loadConfig({ TETHER_WEBHOOK_SECRETS: `deploys=${secret()}`, TETHER_WEBHOOK_SIGNAL_TYPES: "github=*" }),
    ).toThrow(/no source "github"/);
  });
});

describe.each(providers())("POST /api/webhooks/:source [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  let saved: Record<string, string | undefined>;
  const deploysSecret = secret();
  const rotatedSecret = secret();
  const githubSecret = secret();
  const SIGNAL_TYPES = "deploys=deploy.finished|deploy.failed,github=*";

  beforeAll(() => {
    saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
    process.env.DATABASE_URL = url; // the route's composition root follows it
    process.env.TETHER_WEBHOOK_SECRETS = `deploys=${deploysSecret},deploys=${rotatedSecret},github=${githubSecret}`;
    process.env.TETHER_WEBHOOK_SIGNAL_TYPES = SIGNAL_TYPES;
    t = createTestRuntime(url);
  });
  afterEach(() => {
    process.env.TETHER_WEBHOOK_SECRETS = `deploys=${deploysSecret},deploys=${rotatedSecret},github=${githubSecret}`;
    process.env.TETHER_WEBHOOK_SIGNAL_TYPES = SIGNAL_TYPES;
    delete process.env.TETHER_WEBHOOK_TOLERANCE_SECONDS;
    delete process.env.TETHER_MAX_BODY_BYTES;
  });
  afterAll(async () => {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await t.close();
  });

  /** A run parked on a person (no signal wakes it), so nothing here becomes runnable for other files' workers. */
  const parkedRun = async () => {
    const run = await createRun(t.store);
    await t.db.run.update({ where: { id: run.id }, data: { status: "WAITING_APPROVAL", runnableAt: null } });
    return run.id;
  };
  const now = () => Math.floor(Date.now() / 1000);
  const body = (runId: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ runId, type: "deploy.finished", payload: { deployId: "dep_9", outcome: "succeeded" }, ...extra });

  type Delivery = {
    source?: string;
    id?: string;
    timestamp?: number;
    body: string;
    signature?: string;
    sign?: { secret: string; id?: string; timestamp?: number; body?: string };
    omit?: string[];
  };
  const deliver = async (d: Delivery) => {
    const id = d.id ?? `msg_${uid("w")}`;
    const timestamp = d.timestamp ?? now();
    const s = d.sign ?? { secret: deploysSecret };
    const signature =
      d.signature ?? signWebhook(keyOf(s.secret), s.id ?? id, s.timestamp ?? timestamp, s.body ?? d.body);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signature,
    };
    for (const name of d.omit ?? []) delete headers[name];
    const source = d.source ?? "deploys";
    const response = await webhookRoute(
      new Request(`http://localhost/api/webhooks/${source}`, { method: "POST", headers, body: d.body }),
      { params: Promise.resolve({ source }) },
    );
    return { status: response.status, json: await response.json() };
  };
  const signals = (runId: string) => t.db.signal.findMany({ where: { runId } });
  const events = (runId: string) => t.db.traceEvent.count({ where: { runId } });

  it("a verified call becomes the run's signal: 202, the signal stored with the webhook's type and payload, a waiting run woken", async () => {
    const run = await createRun(t.store);
    await t.db.run.update({
      where: { id: run.id },
      data: { status: "WAITING_EVENT", waitingFor: "deploy.finished", runnableAt: null },
    });
    const id = `msg_${uid("w")}`;
    const reply = await deliver({ id, body: body(run.id, { timestamp: "2025-01-01T00:00:00Z" }) });
    expect(reply).toEqual({
      status: 202,
      json: { outcome: "delivered", signalId: expect.stringMatching(/^sig_/), runId: run.id },
    });
    const [signal] = await signals(run.id);
    expect(signal).toMatchObject({
      id: reply.json.signalId,
      type: "deploy.finished",
      dedupKey: `webhook:deploys:${id}`,
      consumedAt: null,
    });
    expect(JSON.parse(signal.payload)).toEqual({ deployId: "dep_9", outcome: "succeeded" });
    expect(await t.db.run.findUnique({ where: { id: run.id }, select: { runnableAt: true } })).toMatchObject({
      runnableAt: expect.any(Date),
    });
    // leave nothing runnable behind for the other test files' workers
    await t.db.run.update({ where: { id: run.id }, data: { status: "CANCELLED", runnableAt: null } });
  });

  it("the same webhook-id delivered three times (retries re-sign with a new timestamp) is one signal", async () => {
    const runId = await parkedRun();
    const id = `msg_${uid("w")}`;
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await deliver({ id, timestamp: now() - i, body: body(runId) }));
    expect(replies.map((r) => r.status)).toEqual([202, 200, 200]);
    expect(replies.map((r) => r.json.outcome)).toEqual(["delivered", "duplicate", "duplicate"]);
    expect(new Set(replies.map((r) => r.json.signalId)).size).toBe(1);
    expect(await signals(runId)).toHaveLength(1);
    // another webhook-id, or the same id from another source, is another signal
    expect((await deliver({ body: body(runId) })).status).toBe(202);
    expect((await deliver({ source: "github", id, body: body(runId), sign: { secret: githubSecret } })).status).toBe(
      202,
    );
    expect(await signals(runId)).toHaveLength(3);
  });

  it("several signatures with one valid, or a signature by the source's other (rotated) secret, are accepted", async () => {
    const runId = await parkedRun();
    const id = `msg_${uid("w")}`;
    const timestamp = now();
    const text = body(runId);
    const valid = signWebhook(keyOf(deploysSecret), id, timestamp, text);
    const other = signWebhook(keyOf(secret()), id, timestamp, text);
    const reply = await deliver({
      id,
      timestamp,
      body: text,
      signature: `v1a,${other.slice(3)} ${other} v1,bm90LWEtc2lnbmF0dXJl   ${valid}`,
    });
    expect(reply.status).toBe(202);
    expect((await deliver({ body: body(runId), sign: { secret: rotatedSecret } })).status).toBe(202);
    expect(await signals(runId)).toHaveLength(2);
  });

  it("refuses a tampered body, a wrong secret, a stale or future timestamp, missing or malformed headers: 401, nothing written", async () => {
    const runId = await parkedRun();
    const before = await events(runId);
    const text = body(runId);
    const refused: Array<[string, Delivery]> = [
      ["tampered body", { body: text.replace("succeeded", "failed"), sign: { secret: deploysSecret, body: text } }],
      ["another source's secret", { body: text, sign: { secret: githubSecret } }],
      ["an unknown secret", { body: text, sign: { secret: secret() } }],
      ["signed for another id", { body: text, sign: { secret: deploysSecret, id: "msg_other" } }],
      ["signed for another timestamp", { body: text, sign: { secret: deploysSecret, timestamp: now() - 1 } }],
      ["timestamp 6 min old", { body: text, timestamp: now() - 360 }],
      ["timestamp 6 min ahead", { body: text, timestamp: now() + 360 }],
      ["no webhook-id", { body: text, omit: ["webhook-id"] }],
      ["no webhook-timestamp", { body: text, omit: ["webhook-timestamp"] }],
      ["no webhook-signature", { body: text, omit: ["webhook-signature"] }],
      ["no headers at all", { body: text, omit: ["webhook-id", "webhook-timestamp", "webhook-signature"] }],
      ["no v1 signature", { body: text, signature: "v1a,abc v2,def" }],
      ["a bare signature", { body: text, signature: "bm90LWEtc2lnbmF0dXJl" }],
      ["timestamp in milliseconds", { body: text, timestamp: Date.now() }],
      ["id with a dot", { body: text, id: "msg.1" }],
    ];
    for (const [name, delivery] of refused) {
      const reply = await deliver(delivery);
      expect(reply.status, name).toBe(401);
      expect(reply.json, name).toEqual({ error: { code: "UNAUTHENTICATED", message: expect.any(String) } });
    }
    expect((await deliver({ body: text, omit: ["webhook-id", "webhook-signature"] })).json.error.message).toBe(
      "Missing webhook-id, webhook-signature headers.",
    );
    expect(await signals(runId)).toHaveLength(0);
    expect(await events(runId)).toBe(before);
  });

  it("the tolerance is TETHER_WEBHOOK_TOLERANCE_SECONDS", async () => {
    const runId = await parkedRun();
    process.env.TETHER_WEBHOOK_TOLERANCE_SECONDS = "30";
    expect((await deliver({ body: body(runId), timestamp: now() - 60 })).status).toBe(401);
    expect((await deliver({ body: body(runId), timestamp: now() - 20 })).status).toBe(202);
    process.env.TETHER_WEBHOOK_TOLERANCE_SECONDS = "3600";
    expect((await deliver({ body: body(runId), timestamp: now() - 600 })).status).toBe(202);
  });

  it("an unknown source, or none configured, is a 404", async () => {
    const runId = await parkedRun();
    expect(await deliver({ source: "stripe", body: body(runId) })).toEqual({
      status: 404,
      json: { error: { code: "NOT_FOUND", message: "There is no webhook source by that name." } },
    });
    expect((await deliver({ source: "Deploys", body: body(runId) })).status).toBe(404);
    delete process.env.TETHER_WEBHOOK_SECRETS;
    delete process.env.TETHER_WEBHOOK_SIGNAL_TYPES;
    expect((await deliver({ body: body(runId) })).status).toBe(404);
    process.env.TETHER_WEBHOOK_SECRETS = "";
    expect((await deliver({ body: body(runId) })).status).toBe(404);
    expect(await signals(runId)).toHaveLength(0);
  });

  it("a signed body that is not JSON or not the contract is a 400; an unknown run a 404; too large a 413", async () => {
    const runId = await parkedRun();
    expect(await deliver({ body: "{not json" })).toMatchObject({
      status: 400,
      json: { error: { code: "INVALID_INPUT", message: "The request body is not valid JSON." } },
    });
    expect((await deliver({ body: "" })).status).toBe(400);
    expect((await deliver({ body: "[".repeat(100) + "]".repeat(100) })).status).toBe(400);
    expect(await deliver({ body: JSON.stringify({ runId, payload: {} }) })).toMatchObject({
      status: 400,
      json: { error: { code: "INVALID_INPUT", fieldErrors: { type: expect.any(Array) } } },
    });
    expect(await deliver({ body: JSON.stringify({ runId, type: "deploy.finished", data: {} }) })).toMatchObject({
      status: 400,
      json: { error: { fieldErrors: { _: expect.any(Array) } } },
    });
    expect(await deliver({ body: body(uid("run_missing")) })).toEqual({
      status: 404,
      json: { error: { code: "NOT_FOUND", message: "That run does not exist." } },
    });
    process.env.TETHER_MAX_BODY_BYTES = "512";
    expect(await deliver({ body: body(runId, { payload: { note: "x".repeat(600) } }) })).toMatchObject({
      status: 413,
      json: { error: { code: "PAYLOAD_TOO_LARGE" } },
    });
    expect(await signals(runId)).toHaveLength(0);
  });

  it("a signal type the source may not deliver is a 403 and writes nothing; a source with no list may deliver none", async () => {
    const runId = await parkedRun();
    const before = await events(runId);
    const forged = await deliver({ body: body(runId, { type: "approval.granted" }) });
    expect(forged).toEqual({
      status: 403,
      json: {
        error: {
          code: "FORBIDDEN",
          message:
            'This source may not deliver signals of type "approval.granted"; it may deliver: deploy.finished, deploy.failed.',
        },
      },
    });
    expect((await deliver({ body: body(runId, { type: "deploy.finished.extra" }) })).status).toBe(403);
    expect((await deliver({ body: body(runId, { type: "Deploy.Finished" }) })).status).toBe(403);
    // the refusal comes before the run is looked up: an unknown run is a 403 too, not a 404
    expect((await deliver({ body: body(uid("run_missing"), { type: "approval.granted" }) })).status).toBe(403);

    // a source with a secret and no list (the configuration before TETHER_WEBHOOK_SIGNAL_TYPES existed)
    process.env.TETHER_WEBHOOK_SIGNAL_TYPES = "github=*";
    const unlisted = await deliver({ body: body(runId) });
    expect(unlisted.status).toBe(403);
    expect(unlisted.json.error.message).toMatch(/may not deliver any signal type yet: .*TETHER_WEBHOOK_SIGNAL_TYPES/);
    delete process.env.TETHER_WEBHOOK_SIGNAL_TYPES;
    expect((await deliver({ body: body(runId) })).status).toBe(403);
    expect(await signals(runId)).toHaveLength(0);
    expect(await events(runId)).toBe(before);

    // the same delivery once the type is listed; "*" allows any type
    process.env.TETHER_WEBHOOK_SIGNAL_TYPES = "deploys=deploy.failed|deploy.finished";
    expect((await deliver({ body: body(runId) })).status).toBe(202);
    expect(
      (
        await deliver({
          source: "github",
          body: body(runId, { type: "approval.granted" }),
          sign: { secret: githubSecret },
        })
      ).status,
    ).toBe(403);
    process.env.TETHER_WEBHOOK_SIGNAL_TYPES = "deploys=deploy.finished,github=*";
    expect(
      (await deliver({ source: "github", body: body(runId, { type: "pr.merged" }), sign: { secret: githubSecret } }))
        .status,
    ).toBe(202);
    expect((await signals(runId)).map((s) => s.type).sort()).toEqual(["deploy.finished", "pr.merged"]);
  });

  it("a malformed configuration is a generic 500, logged without the secret, never a stack trace", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const leaked = `whsec_${randomBytes(8).toString("base64")}`;
    process.env.TETHER_WEBHOOK_SECRETS = `deploys=${leaked}`;
    const reply = await deliver({ body: body(await parkedRun()) });
    expect(reply).toEqual({
      status: 500,
      json: { error: { code: "INTERNAL", message: "Something went wrong on the server." } },
    });
    expect(String(error.mock.calls[0]?.[1])).toMatch(/TETHER_WEBHOOK_SECRETS entry 1 \(deploys\)/);
    expect(JSON.stringify(error.mock.calls)).not.toContain(leaked.slice(6));
    error.mockRestore();
  });
});
