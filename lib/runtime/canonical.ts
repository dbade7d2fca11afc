import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values always serialize identically. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/**
 * The value with each object's keys in sorted order, undefined values left out (JSON leaves them out too).
 * A new object per object, built by assignment (Object.fromEntries of entry pairs cost twice as much on a
 * step's ~1 KB fact); an array is copied only when an element changed. `__proto__` is defined as an own
 * key, as fromEntries would, not assigned (which would set the prototype).
 */
function sortKeys(value: unknown): unknown {
  if (typeof value !== "object" || value === null || value instanceof Date) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const sorted = sortKeys(value[i]);
      if (copy) copy.push(sorted);
      else if (sorted !== value[i]) (copy = value.slice(0, i)).push(sorted);
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: sortKeys(v), enumerable: true, writable: true, configurable: true });
    else out[key] = sortKeys(v);
  }
  return out;
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
