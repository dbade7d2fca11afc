import { z } from "zod";
import {
  EXTERNAL_GATE_AGENT,
  gateEvidenceSchema,
  gateRunInputSchema,
  gateArgsSchema,
  GATE_OUTCOME_SIGNAL,
  type GateRunInput,
} from "@/lib/agents/external-gate";
import type { Db } from "@/lib/db";
import { createGateCallback } from "@/lib/gates/callbacks";
import { buildGateView, CALLER_OUTCOMES, gatePacketOf, isDecided, type GateView } from "@/lib/gates/gate-view";
import { findKnownQueues } from "@/lib/gates/known-queues";
import {
  AppError,
  canonicalJson,
  escalationQueues,
  expiryPolicyOf,
  expiryPolicySchema,
  fieldErrorsFromIssues,
  parseDurationText,
  type Runtime,
} from "@/lib/runtime";
import { argsSchemaFromJsonSchema } from "@/lib/tools/registered/json-schema";
import { startRun } from "./start-run";

// The open gate as a service (docs/gates-api.md): a caller outside Tether asks "may I run this action?",
// waits for a person, then reports what it did. Every surface (HTTP, MCP, CLI, clients) calls these; the
// gate is a run of the built-in agent external-gate (lib/agents/external-gate.ts), started through startRun.

export type GateDeps = { db: Db; runtime: Runtime };

const MAX_METADATA_BYTES = 8 * 1024;
const MAX_WAIT_SECONDS = 60;
/** The long-poll looks again at least this often: a decision made in another process on SQLite sends no wake-up. */
const WAIT_RECHECK_MS = 1000;

const expiresInSchema = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const ms =
    typeof value === "number" ? (Number.isInteger(value) && value > 0 ? value * 1000 : null) : parseDurationText(value);
  if (ms === null || ms > 365 * 86_400_000) {
    ctx.addIssue({ code: "custom", message: 'Give whole seconds, or "90s", "30m", "24h", "7d" (at most a year).' });
    return z.NEVER;
  }
  return Math.ceil(ms / 1000);
});

export const gateRequestSchema = z.object({
  action: gateRunInputSchema.shape.action,
  description: z.string().max(4000).optional(),
  evidence: z.array(gateEvidenceSchema).max(50).optional(),
  impact: z.string().trim().min(1).max(1000).optional(),
  uncertainty: z.string().trim().min(1).max(2000).optional(),
  queue: gateRunInputSchema.shape.queue.optional(),
  approvals: z.number().int().min(1).max(5).optional(),
  expiresIn: expiresInSchema.optional(),
  onExpiry: expiryPolicySchema().optional(),
  callbackUrl: gateRunInputSchema.shape.callbackUrl,
  idempotencyKey: z.string().min(1).max(200),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, "At most 8 KB of metadata.")
    .optional(),
});
export type GateRequestInput = z.input<typeof gateRequestSchema>;

export const gateOutcomeSchema = z.object({
  status: z.enum(CALLER_OUTCOMES),
  receipt: z
    .union([
      z.string().max(2000),
      z
        .record(z.string(), z.unknown())
        .refine((r) => JSON.stringify(r).length <= MAX_METADATA_BYTES, "At most 8 KB of receipt."),
    ])
    .optional(),
  detail: z.string().max(2000).optional(),
});
export type GateOutcomeInput = z.input<typeof gateOutcomeSchema>;

export type RequestGateResult = GateView & { statusUrl: string; created: boolean; callbackSecret?: string };

function invalid(
  issues: z.core.$ZodIssue[] | Array<{ path: PropertyKey[]; message: string }>,
  message = "The gate request is invalid.",
): AppError {
  return new AppError("INVALID_INPUT", {
    message,
    userMessage: message,
    fieldErrors: fieldErrorsFromIssues(issues as z.core.$ZodIssue[]),
  });
}

/** Ask for a person's decision on one action; the same idempotency key returns the same gate (201 new, 200 known). */
export async function requestGate(
  deps: GateDeps,
  opts: { requestedBy: string; input: unknown },
): Promise<RequestGateResult> {
  const parsed = gateRequestSchema.safeParse(opts.input);
  if (!parsed.success) throw invalid(parsed.error.issues);
  const { idempotencyKey, expiresIn, ...request } = parsed.data;
  const input: GateRunInput = gateRunInputSchema.parse({ ...request, expiresInSeconds: expiresIn ?? null });
  await checkRequest(deps.db, input);

  // The key is the requester's: another principal's key of the same text is another gate.
  const key = `gate:${opts.requestedBy}:${idempotencyKey}`;
  const { run, created } = await startRun(
    deps,
    { agent: EXTERNAL_GATE_AGENT, input, idempotencyKey: key, startedBy: opts.requestedBy },
    { internal: true },
  );
  if (!created && (run.agentSlug !== EXTERNAL_GATE_AGENT || canonicalJson(run.input) !== canonicalJson(input))) {
    throw new AppError("CONFLICT", {
      message: `idempotency key ${idempotencyKey} was used for another request`,
      userMessage:
        "This idempotency key was already used for a different gate request; use a new key for a new request.",
    });
  }
  const callback = input.callbackUrl
    ? await createGateCallback(deps.db, { gateId: run.id, url: input.callbackUrl, by: opts.requestedBy })
    : null;
  const gate = await getGate(deps, run.id);
  return {
    ...gate,
    statusUrl: `/api/gates/${run.id}`,
    created,
    ...(callback?.secret ? { callbackSecret: callback.secret } : {}),
  };
}

/** What the schema alone cannot tell: the caller's JSON Schema converts and the args match it; the queues exist. */
async function checkRequest(db: Db, input: GateRunInput) {
  if (input.action.schema) {
    const converted = argsSchemaFromJsonSchema(input.action.schema);
    if (!converted.ok) throw invalid([{ path: ["action", "schema"], message: converted.reason }]);
  }
  const args = gateArgsSchema(input.action.schema).safeParse(input.action.args);
  if (!args.success)
    throw invalid(
      args.error.issues.map((issue) => ({ ...issue, path: ["action", "args", ...issue.path] })),
      "The action's args do not match its schema.",
    );
  const known = await findKnownQueues(db);
  const unknown = [
    ...(known.has(input.queue) ? [] : [{ path: ["queue"], message: `There is no decision queue "${input.queue}".` }]),
    ...escalationQueues(expiryPolicyOf(input.onExpiry))
      .filter((q) => !known.has(q))
      .map((q) => ({ path: ["onExpiry"], message: `There is no decision queue "${q}" to escalate to.` })),
  ];
  if (unknown.length > 0) throw invalid(unknown);
}

/** The gate; NOT_FOUND for an unknown id or a run that is not a gate. */
export async function getGate(deps: Pick<GateDeps, "runtime">, gateId: string): Promise<GateView> {
  const { store } = deps.runtime;
  const run = await store.getRun(gateId);
  if (!run || run.agentSlug !== EXTERNAL_GATE_AGENT)
    throw new AppError("NOT_FOUND", {
      message: `gate ${gateId} not found`,
      userMessage: "There is no gate with that id.",
    });
  const [packets, signals] = await Promise.all([
    store.findPackets({ runId: run.id }),
    store.listSignals(run.id, { type: GATE_OUTCOME_SIGNAL }),
  ]);
  return buildGateView(run, gatePacketOf(packets), signals);
}

/**
 * The gate once it is decided, or as it is after `waitSeconds` (0..60). Woken by the store's wake-ups
 * (a decision makes the gate run runnable: in this process at once, from others by Postgres NOTIFY),
 * and re-read at least every second (`recheckMs`) as a fallback; `signal` ends the wait early (the client went away).
 */
export async function waitForGate(
  deps: Pick<GateDeps, "runtime">,
  gateId: string,
  opts: { waitSeconds: number; signal?: AbortSignal; recheckMs?: number },
): Promise<GateView> {
  const waitMs = Math.min(Math.max(0, opts.waitSeconds), MAX_WAIT_SECONDS) * 1000;
  const deadline = Date.now() + waitMs;
  let woken: (() => void) | null = null;
  let isDirty = false;
  const unsubscribe = deps.runtime.store.onRunnable((w) => {
    if (w.runId && w.runId !== gateId) return;
    isDirty = true;
    woken?.();
  });
  try {
    for (;;) {
      isDirty = false;
      const gate = await getGate(deps, gateId);
      const left = deadline - Date.now();
      if (isDecided(gate.status) || left <= 0 || opts.signal?.aborted) return gate;
      if (isDirty) continue; // woken while reading: read again
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, opts.recheckMs ?? WAIT_RECHECK_MS));
        function done() {
          clearTimeout(timer);
          woken = null;
          opts.signal?.removeEventListener("abort", done);
          resolve();
        }
        woken = done;
        opts.signal?.addEventListener("abort", done);
      });
    }
  } finally {
    unsubscribe();
  }
}

/**
 * The caller says what it did with an approved action; the gate run records it as the effect's outcome and
 * completes. CONFLICT before an approval, and for a report that differs from the one recorded; the same
 * report again is answered as the first.
 */
export async function reportGateOutcome(
  deps: GateDeps,
  opts: { gateId: string; reportedBy: string; input: unknown },
): Promise<GateView> {
  const parsed = gateOutcomeSchema.safeParse(opts.input);
  if (!parsed.success) throw invalid(parsed.error.issues, "The outcome report is invalid.");
  const report = parsed.data;
  const gate = await getGate(deps, opts.gateId);
  if (gate.outcome) return sameReportOrConflict(gate, report);
  if (gate.status !== "approved" && gate.status !== "edited") {
    throw new AppError("CONFLICT", {
      message: `gate ${gate.gateId} is ${gate.status}`,
      userMessage: `The gate is ${gate.status}: an outcome is reported only once the action was approved.`,
    });
  }
  const { duplicate } = await deps.runtime.deliverSignal(gate.gateId, {
    type: GATE_OUTCOME_SIGNAL,
    dedupKey: "outcome",
    payload: { ...report, reportedBy: opts.reportedBy },
  });
  const after = await getGate(deps, gate.gateId);
  return duplicate ? sameReportOrConflict(after, report) : after;
}

function sameReportOrConflict(gate: GateView, report: z.output<typeof gateOutcomeSchema>): GateView {
  const recorded = gate.outcome!;
  const isSame =
    canonicalJson({ status: recorded.status, receipt: recorded.receipt ?? null, detail: recorded.detail ?? null }) ===
    canonicalJson({ status: report.status, receipt: report.receipt ?? null, detail: report.detail ?? null });
  if (isSame) return gate;
  throw new AppError("CONFLICT", {
    message: `gate ${gate.gateId} already has an outcome`,
    userMessage: `The gate's outcome was already reported (${recorded.status}); a different report is refused.`,
  });
}
