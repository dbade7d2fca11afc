// A human gate around a Vercel AI SDK tool: the model proposes the call, a person decides in Tether, and only
// then does the tool run — with the arguments the person approved, which may be an edit of the model's.
//
//   import { withApproval } from "@/lib/client/ai-sdk";     (as a package: "@tether/client/ai-sdk")
//   const refund = withApproval(refundTool, { client: tether, name: "payments.refund", queue: "payments" });
//   await generateText({ model, tools: { refund }, prompt, stopWhen: stepCountIs(3) });
//
// On a rejection, a redirect or an expiry the tool does not run: the model receives a `GateNotExecuted`
// result saying so (with the reason or instruction), and can tell the user or change course.
import { asSchema, type Tool, type ToolCallOptions } from "ai";
import type { TetherClient } from "./client";
import {
  isApproved,
  type Gate,
  type GateCreated,
  type GateEvidence,
  type GateExpiryPolicy,
  type GateOutcome,
  type JsonObject,
  type RefusedGateStatus,
} from "./types";

type PerCall<T, INPUT> = T | ((args: INPUT) => T);

export type WithApprovalOptions<INPUT> = {
  client: TetherClient;
  /** The action's name in Tether (what queues, rules and reviewers see), e.g. "payments.refund". */
  name: string;
  description?: PerCall<string, INPUT>;
  impact?: PerCall<string, INPUT>;
  uncertainty?: PerCall<string, INPUT>;
  evidence?: PerCall<GateEvidence[], INPUT>;
  metadata?: PerCall<JsonObject, INPUT>;
  queue?: string;
  approvals?: number;
  expiresIn?: number | string;
  onExpiry?: GateExpiryPolicy;
  /** JSON Schema of the arguments for the reviewer's edit form; the tool's inputSchema by default, `false` for none. */
  schema?: JsonObject | false;
  /**
   * The gate's idempotency key: `<name>:<toolCallId>` by default, so a retried step does not ask twice. Give
   * one of your own when your provider reuses tool-call ids across conversations (some local models count
   * from call_0), or the call would find an earlier conversation's gate.
   */
  idempotencyKey?: (args: INPUT, options: ToolCallOptions) => string;
  /** How long the tool call waits for a person (default 10 minutes); past it the model hears "still pending". */
  timeoutMs?: number;
  pollSeconds?: number;
  /** Called once the gate is open (e.g. to tell the user where it waits); the tool call then waits for the decision. */
  onPending?: (gate: GateCreated) => void | Promise<void>;
  /** A failed outcome report after the tool ran (the action happened; only Tether's record of it is missing). console.warn by default. */
  onReportError?: (error: unknown, gate: Gate) => void;
};

/** What the model receives when the tool did not run. */
export type GateNotExecuted = {
  executed: false;
  gateId: string;
  /** Refused; still undecided at the timeout; approved with arguments the tool's schema refuses (not_done); or done before under the same idempotency key. */
  status: RefusedGateStatus | "pending" | "not_done" | "already_reported";
  reason: string | null;
  outcome?: GateOutcome;
  message: string;
};

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export function withApproval<INPUT, OUTPUT>(
  wrapped: Tool<INPUT, OUTPUT>,
  options: WithApprovalOptions<INPUT>,
): Tool<INPUT, OUTPUT | GateNotExecuted> {
  const run = wrapped.execute;
  if (!run)
    throw new TypeError(`withApproval(${options.name}): the tool has no execute function, so there is nothing to gate`);
  const inputSchema = asSchema(wrapped.inputSchema);
  const editSchema = options.schema === false ? undefined : (options.schema ?? (inputSchema.jsonSchema as JsonObject));
  const perCall = <T>(value: PerCall<T, INPUT> | undefined, args: INPUT): T | undefined =>
    typeof value === "function" ? (value as (a: INPUT) => T)(args) : value;

  async function execute(input: INPUT, callOptions: ToolCallOptions): Promise<OUTPUT | GateNotExecuted> {
    const { client } = options;
    const idempotencyKey = options.idempotencyKey?.(input, callOptions) ?? `${options.name}:${callOptions.toolCallId}`;
    const created = await client.requestApproval({
      action: { tool: options.name, args: input as JsonObject, ...(editSchema ? { schema: editSchema } : {}) },
      idempotencyKey,
      description: perCall(options.description, input),
      impact: perCall(options.impact, input),
      uncertainty: perCall(options.uncertainty, input),
      evidence: perCall(options.evidence, input),
      metadata: perCall(options.metadata, input),
      queue: options.queue,
      approvals: options.approvals,
      expiresIn: options.expiresIn,
      onExpiry: options.onExpiry,
    });
    const { gateId } = created;
    await options.onPending?.(created);
    const gate = await client.waitForDecision<JsonObject>(gateId, {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      pollSeconds: options.pollSeconds,
      signal: callOptions.abortSignal,
    });
    if (gate.outcome)
      return notExecuted(
        gate,
        "already_reported",
        `This action was already carried out under Tether gate ${gateId} (outcome: ${gate.outcome.status}); it was not run again.`,
      );
    if (!isApproved(gate)) return refusal(gate);

    // The edit form checks edits against the schema; the tool's own schema has the last word before it runs.
    const approved = await inputSchema.validate?.(gate.approvedArgs);
    if (approved && !approved.success) {
      await report(gate, {
        status: "not_done",
        detail: clip(`The approved arguments do not fit the tool's input schema: ${approved.error.message}`, MAX_TEXT),
      });
      return notExecuted(
        gate,
        "not_done",
        `The approved arguments do not fit ${options.name}'s input schema, so it was not run (${approved.error.message}).`,
      );
    }
    const args = (approved ? approved.value : gate.approvedArgs) as INPUT;
    let result: OUTPUT;
    try {
      result = await settle(run!(args, callOptions));
    } catch (error) {
      await report(gate, {
        status: "failed",
        detail: clip(error instanceof Error ? error.message : String(error), MAX_TEXT),
      });
      throw error;
    }
    await report(gate, { status: "happened", ...receiptOf(result) });
    return result;
  }

  async function report(gate: Gate, outcome: Parameters<TetherClient["reportOutcome"]>[1]) {
    try {
      await options.client.reportOutcome(gate.gateId, outcome);
    } catch (error) {
      (
        options.onReportError ?? ((e) => console.warn(`tether: reporting the outcome of gate ${gate.gateId} failed`, e))
      )(error, gate);
    }
  }

  return { ...wrapped, execute } as Tool<INPUT, OUTPUT | GateNotExecuted>;
}

function refusal(gate: Gate): GateNotExecuted {
  switch (gate.status) {
    case "rejected":
      return notExecuted(
        gate,
        "rejected",
        `A person rejected this action, so it was not performed. Their reason: ${gate.reason ?? "(none given)"}`,
      );
    case "redirected":
      return notExecuted(
        gate,
        "redirected",
        `A person did not approve this action and asks you instead: ${gate.reason ?? "(no instruction given)"}. It was not performed.`,
      );
    case "expired":
      return notExecuted(
        gate,
        "expired",
        `No one approved this action in time, so it was not performed${gate.reason ? ` (${gate.reason})` : ""}.`,
      );
    default:
      return notExecuted(
        gate,
        "pending",
        `No one has decided on this action yet (Tether gate ${gate.gateId}), so it was not performed. Tell the user it awaits approval.`,
      );
  }
}

function notExecuted(gate: Gate, status: GateNotExecuted["status"], message: string): GateNotExecuted {
  return {
    executed: false,
    gateId: gate.gateId,
    status,
    reason: gate.reason,
    ...(gate.outcome ? { outcome: gate.outcome } : {}),
    message,
  };
}

/** A tool may stream preliminary results (an async iterable): the last one is its result. */
async function settle<T>(value: AsyncIterable<T> | PromiseLike<T> | T): Promise<T> {
  if (value && typeof value === "object" && Symbol.asyncIterator in value) {
    let last: T | undefined;
    for await (const item of value as AsyncIterable<T>) last = item;
    return last as T;
  }
  return value as T;
}

// The outcome report's limits (docs/gates-api.md): a text receipt or a detail up to 2000 characters, an object receipt up to 8 KB.
const MAX_TEXT = 2000;
const MAX_RECEIPT_JSON = 8 * 1024;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The outcome's receipt: the tool's result as given (an object or a string), other values wrapped; too large, a clipped preview. */
function receiptOf(result: unknown): { receipt?: string | JsonObject } {
  if (result === undefined) return {};
  if (typeof result === "string") return { receipt: clip(result, MAX_TEXT) };
  const receipt =
    typeof result === "object" && result !== null && !Array.isArray(result) ? (result as JsonObject) : { result };
  const json = JSON.stringify(receipt) ?? "null";
  return { receipt: json.length <= MAX_RECEIPT_JSON ? receipt : { truncated: true, preview: clip(json, MAX_TEXT) } };
}
