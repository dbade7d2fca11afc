import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values always serialize identically. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/**
 * The value with each object's keys in sorted order, undefined values left out (JSON leaves them out too).
 * What is already canonical is returned as it is: an array whose elements are, and a plain object whose keys
 * are in order, with no undefined value, whose values are (a step's digest meets many such). Anything else is
 * a new object built by assignment; `__proto__` is defined as an own key, as Object.fromEntries would, not
 * assigned (which would set the prototype). Only a plain object may stand for itself: a boxed number or a class
 * instance with a toJSON writes otherwise than its keys.
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
  const keys = Object.keys(record);
  const inOrder = sortInPlace(keys);
  const proto = Object.getPrototypeOf(record);
  let out: Record<string, unknown> | null = inOrder && (proto === Object.prototype || proto === null) ? null : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const v = record[key];
    const sorted = v === undefined ? undefined : sortKeys(v);
    if (!out) {
      if (v !== undefined && sorted === v) continue;
      out = {};
      for (let k = 0; k < i; k++) assign(out, keys[k], record[keys[k]]); // canonical as they were
    }
    if (v !== undefined) assign(out, key, sorted);
  }
  return out ?? record;
}

function assign(out: Record<string, unknown>, key: string, value: unknown) {
  if (key === "__proto__")
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Sorts the keys as Array.prototype.sort would (UTF-16 code units), by insertion: an object has few keys, and
 *  sort's own work array is most of what canonicalJson allocated. True when they were in order already. */
function sortInPlace(keys: string[]): boolean {
  let inOrder = true;
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    if (keys[i - 1] < key) continue;
    inOrder = false;
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  return inOrder;
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
