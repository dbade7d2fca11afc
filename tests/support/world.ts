import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A small simulated outside world, reached over real HTTP, that keeps a ledger of every effect it
// applied, so a test can count duplicates. It lives in the test process and survives worker kills.
//   payments  — idempotent: the same Idempotency-Key returns the first result and applies nothing new
//   mail      — no key, but a sent-folder lookup by operation id (reconcilable)
//   deploys   — unsafe: neither a key nor a lookup
//   orders    — reads; tests change them to simulate a world that moved while a run waited
// Fault knobs: `timeoutAfterApply` makes the next N effect calls apply the effect, then hang and fail;
// `failBeforeApply` fails the next N effect calls with a 503 before anything is applied; `failReads` the next N reads.

export type LedgerEntry = {
  system: string;
  action: string;
  runId: string | null;
  operationId: string | null;
  at: string;
  data: unknown;
};

export type World = {
  url: string;
  ledger: LedgerEntry[];
  /** Every request that reached the world (apply or not), when it arrived. */
  requests: Array<{ method: string; path: string; runId: string | null; at: number }>;
  /** Requests being handled right now (held by `latencyMs`). */
  readonly inFlight: number;
  orders: Map<string, { id: string; amountCents: number; status: string }>;
  /** `only` limits the faults to one system ("payments", "mail", "deploys"); `latencyMs` holds every
   *  request that long before it is handled (a slow provider: calls stay in flight), or only those whose
   *  path starts with `latencyPath`. */
  faults: {
    timeoutAfterApply: number;
    failBeforeApply: number;
    failReads: number;
    only?: string;
    latencyMs?: number;
    latencyPath?: string;
  };
  effects: (system?: string) => LedgerEntry[];
  close: () => Promise<void>;
};

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
}

export async function startWorld(): Promise<World> {
  const ledger: LedgerEntry[] = [];
  const charges = new Map<string, unknown>(); // idempotency key → first result
  const sent: Array<{ operationId: string; messageId: string; to: string }> = [];
  const orders = new Map<string, { id: string; amountCents: number; status: string }>();
  const faults: World["faults"] = { timeoutAfterApply: 0, failBeforeApply: 0, failReads: 0 };
  let counter = 0;

  const apply = (system: string, action: string, req: IncomingMessage, operationId: string | null, data: unknown) => {
    ledger.push({
      system,
      action,
      runId: (req.headers["x-run-id"] as string) ?? null,
      operationId,
      at: new Date().toISOString(),
      data,
    });
  };

  const requests: World["requests"] = [];
  let inFlight = 0;
  const server: Server = createServer(async (req, res) => {
    requests.push({
      method: req.method ?? "",
      path: req.url ?? "",
      runId: (req.headers["x-run-id"] as string) ?? null,
      at: Date.now(),
    });
    if (faults.latencyMs && (!faults.latencyPath || (req.url ?? "").startsWith(faults.latencyPath))) {
      inFlight++;
      await new Promise((r) => setTimeout(r, faults.latencyMs));
      inFlight--;
    }
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    /** After the effect is applied, maybe pretend the network dropped: the caller cannot know. */
    const system = (req.url ?? "").split("/")[1];
    const faulty = !faults.only || faults.only === system;
    const respondAfterEffect = (payload: unknown) => {
      if (faults.timeoutAfterApply > 0 && faulty) {
        faults.timeoutAfterApply--;
        res.destroy();
        return;
      }
      send(200, payload);
    };
    try {
      const url = new URL(req.url ?? "/", "http://world");
      if (req.method !== "GET" && faults.failBeforeApply > 0 && faulty) {
        faults.failBeforeApply--;
        return send(503, { error: "unavailable" });
      }
      if (req.method === "GET" && faults.failReads > 0 && faulty) {
        faults.failReads--;
        return send(503, { error: "unavailable" });
      }
      if (req.method === "GET" && url.pathname.startsWith("/orders/")) {
        const order = orders.get(url.pathname.slice("/orders/".length));
        return order ? send(200, order) : send(404, { error: "no such order" });
      }
      if (req.method === "POST" && url.pathname === "/payments/refund") {
        const key = req.headers["idempotency-key"] as string | undefined;
        const input = await body(req);
        if (typeof input.amountCents !== "number" || input.amountCents <= 0)
          return send(400, { error: "amountCents must be positive" });
        if (key && charges.has(key)) return respondAfterEffect(charges.get(key));
        const receipt = { refundId: `re_${++counter}`, orderId: input.orderId, amountCents: input.amountCents };
        if (key) charges.set(key, receipt);
        apply("payments", "refund", req, key ?? null, receipt);
        return respondAfterEffect(receipt);
      }
      if (req.method === "POST" && url.pathname === "/mail/send") {
        const input = await body(req);
        const message = { messageId: `msg_${++counter}`, to: String(input.to), operationId: String(input.operationId) };
        sent.push(message);
        apply("mail", "send", req, message.operationId, message);
        return respondAfterEffect(message);
      }
      if (req.method === "GET" && url.pathname === "/mail/sent") {
        const found = sent.find((m) => m.operationId === url.searchParams.get("operationId"));
        return send(200, { message: found ?? null });
      }
      if (req.method === "POST" && url.pathname === "/deploys/migrate") {
        const input = await body(req);
        const deploy = { deployId: `dep_${++counter}`, migration: input.migration };
        apply("deploys", "migrate", req, null, deploy);
        return respondAfterEffect(deploy);
      }
      if (req.method === "GET" && url.pathname === "/ledger") return send(200, ledger);
      return send(404, { error: "not found" });
    } catch (error) {
      return send(500, { error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ledger,
    requests,
    get inFlight() {
      return inFlight;
    },
    orders,
    faults,
    effects: (system) => ledger.filter((e) => !system || e.system === system),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
