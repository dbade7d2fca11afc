// A client of Tether's open gates: ask a person before an action, wait for their decision, say what you did.
// Plain TypeScript over fetch (Node ≥ 18, Deno, Bun, browsers): no framework, no dependency.
//
//   const tether = createTetherClient({ url: "https://tether.example.com", token: apiToken });  // a token with gates:request
//   const { gateId } = await tether.requestApproval({ action: { tool: "payments.refund", args }, idempotencyKey });
//   const gate = await tether.waitForDecision(gateId, { timeoutMs: 10 * 60_000 });
//   if (isApproved(gate)) { const receipt = await refund(gate.approvedArgs); await tether.reportOutcome(gateId, { status: "happened", receipt }); }
import { TetherApiError, type FieldErrors } from "./errors";
import { tryParseJson } from "./json";
import {
  isDecided,
  type Gate,
  type GateCreated,
  type GateOutcomeInput,
  type JsonObject,
  type RequestApprovalInput,
} from "./types";

export type TetherClientOptions = {
  /** The console's address, e.g. https://tether.example.com (a trailing slash is fine). */
  url: string;
  /** An API token with the `gates:request` scope; the gate is requested as the token's owner. */
  token: string;
  /** Another fetch (a proxy agent, a test double); globalThis.fetch by default. */
  fetch?: typeof fetch;
};

export type WaitOptions = {
  /** Give up after this long and return the gate as it is (still "pending"); wait without end when omitted. */
  timeoutMs?: number;
  /** The longest single long-poll (the server holds a request up to 60 s); 30 by default. */
  pollSeconds?: number;
  signal?: AbortSignal;
};

const MAX_POLL_SECONDS = 60;

export function createTetherClient(options: TetherClientOptions) {
  const base = options.url.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const gatePath = (gateId: string) => `/api/gates/${encodeURIComponent(gateId)}`;

  async function call<T>(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await fetchImpl(base + path, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new TetherApiError({
        code: "NETWORK_ERROR",
        status: 0,
        message: `cannot reach Tether at ${base}: ${(error as Error).message}`,
        cause: error,
      });
    }
    const text = await response.text();
    const json = tryParseJson(text);
    if (!response.ok) {
      const error = (json as { error?: { code?: string; message?: string; fieldErrors?: FieldErrors } } | undefined)
        ?.error;
      throw new TetherApiError({
        code: error?.code ?? `HTTP_${response.status}`,
        status: response.status,
        message: error?.message ?? `${method} ${path} answered ${response.status} ${response.statusText}`,
        fieldErrors: error?.fieldErrors,
      });
    }
    if (json === undefined)
      throw new TetherApiError({
        code: "INVALID_RESPONSE",
        status: response.status,
        message: `${method} ${path} did not answer JSON`,
      });
    return json as T;
  }

  const client = {
    /** Opens a gate: a decision packet in Tether's inbox. The same idempotencyKey returns the same gate (`created: false`). */
    requestApproval<Args extends JsonObject>(input: RequestApprovalInput<Args>): Promise<GateCreated> {
      return call<GateCreated>("POST", "/api/gates", input);
    },

    /** The gate now, or (waitSeconds, up to 60) as soon as it is decided within that time. */
    getGate<Args extends JsonObject = JsonObject>(
      gateId: string,
      opts: { waitSeconds?: number; signal?: AbortSignal } = {},
    ): Promise<Gate<Args>> {
      const wait = Math.max(0, Math.min(MAX_POLL_SECONDS, Math.floor(opts.waitSeconds ?? 0)));
      return call<Gate<Args>>("GET", `${gatePath(gateId)}${wait > 0 ? `?wait=${wait}` : ""}`, undefined, opts.signal);
    },

    /**
     * Long-polls until the gate is decided (approved, edited, rejected, redirected or expired) and returns it;
     * after `timeoutMs` it returns the gate still pending. A dropped connection, a 429 or a 502–504 is asked
     * again (backing off) rather than thrown, so a long wait survives a proxy's hiccup.
     */
    async waitForDecision<Args extends JsonObject = JsonObject>(
      gateId: string,
      opts: WaitOptions = {},
    ): Promise<Gate<Args>> {
      const pollSeconds = Math.max(1, Math.min(MAX_POLL_SECONDS, opts.pollSeconds ?? 30));
      const deadline = opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.timeoutMs;
      let backoffMs = 500;
      for (;;) {
        const waitSeconds = Math.max(0, Math.min(pollSeconds, Math.floor((deadline - Date.now()) / 1000)));
        let gate: Gate<Args>;
        try {
          gate = await client.getGate<Args>(gateId, { waitSeconds, signal: opts.signal });
        } catch (error) {
          if (!(error instanceof TetherApiError && error.isTransient) || Date.now() + backoffMs >= deadline)
            throw error;
          await sleep(backoffMs, opts.signal);
          backoffMs = Math.min(backoffMs * 2, 15_000);
          continue;
        }
        backoffMs = 500;
        // waitSeconds 0 was the last look before the deadline.
        if (isDecided(gate) || waitSeconds === 0 || Date.now() >= deadline) return gate;
      }
    },

    /**
     * Says what became of the approved action: "happened" (with its receipt), "failed", or "not_done". Once per
     * gate: the same report again is accepted, a different one is a CONFLICT. It completes the gate's run.
     */
    reportOutcome<Args extends JsonObject = JsonObject>(
      gateId: string,
      outcome: GateOutcomeInput,
    ): Promise<Gate<Args>> {
      return call<Gate<Args>>("POST", `${gatePath(gateId)}/outcome`, outcome);
    },
  };
  return client;
}

export type TetherClient = ReturnType<typeof createTetherClient>;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
