import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values always serialize identically. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** What an approval was given under: the permission rule (id and version) and the tool's registration. */
export type ApprovalBinding = { rule: string | null; tool: string | null };

/**
 * The digest an approval is bound to: exactly this run, step, tool and arguments — and, for packets asked
 * since approvals were bound to them, the rule and the tool registration in force when it was asked.
 */
export function actionDigest(action: {
  runId: string;
  step: number;
  tool: string;
  args: unknown;
  binding?: ApprovalBinding;
}): string {
  return sha256(
    canonicalJson({
      runId: action.runId,
      step: action.step,
      tool: action.tool,
      args: action.args,
      binding: action.binding,
    }),
  );
}

/** Stable operation id / idempotency key for the call-th world-changing call of a step. */
export function operationId(runId: string, step: number, call: number): string {
  return `op_${sha256(`${runId}:${step}:${call}`).slice(0, 32)}`;
}
