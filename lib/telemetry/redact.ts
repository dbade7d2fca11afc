// What of a tool's arguments and results may leave in a span. Traces go to another system, often
// with other readers and a longer memory than the run's own records, so the default keeps only the
// shape (keys and types); "values" keeps values but blanks every key on the redaction list and every
// string that looks like a credential. Nothing here is a guarantee that free text holds no secret:
// "shape" is the only mode that never exports a value.

export type PayloadMode = "shape" | "values";
export type Redaction = { mode: PayloadMode; keys: RegExp };

export const DEFAULT_REDACTED_KEYS = [
  "secret",
  "token",
  "passw",
  "pwd",
  "api[-_]?key",
  "auth",
  "cookie",
  "session",
  "credential",
  "private",
  "signature",
  "cvv",
  "cvc",
  "card[-_]?number",
  "iban",
  "ssn",
];

const REDACTED = "[redacted]";
const MAX_DEPTH = 4;
const MAX_KEYS = 50;
const MAX_STRING = 256;

/** Substrings that look like credentials wherever they appear (keys of providers, JWTs, bearer headers, PEM, long random tokens). */
const SECRET_PATTERNS = [
  /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}/g,
  /\b(?:sk|pk)-[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|github_pat|glpat|xox[abposr])[-_][A-Za-z0-9_-]{10,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/g,
  /\bBearer\s+\S+/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[A-Z])[A-Za-z0-9+/_-]{32,}={0,2}/g,
];

export function redactedKeys(extra: string[] = []): RegExp {
  return new RegExp(`(?:${[...DEFAULT_REDACTED_KEYS, ...extra].join("|")})`, "i");
}

export const defaultRedaction: Redaction = { mode: "shape", keys: redactedKeys() };

/** The payload as the span may carry it (a JSON string), by the rule. */
export function redactPayload(value: unknown, rule: Redaction): string {
  return JSON.stringify(rule.mode === "shape" ? shapeOf(value, 0) : redactValue(value, rule, 0)) ?? "null";
}

/** Keys and types only: {"orderId":"string","amountCents":"number","items":["object"]}. */
export function shapeOf(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value))
    return depth >= MAX_DEPTH || value.length === 0 ? `array(${value.length})` : [shapeOf(value[0], depth + 1)];
  if (typeof value === "object") {
    if (depth >= MAX_DEPTH) return "object";
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .slice(0, MAX_KEYS)
        .map(([k, v]) => [k, shapeOf(v, depth + 1)]),
    );
  }
  return typeof value;
}

function redactValue(value: unknown, rule: Redaction, depth: number): unknown {
  if (typeof value === "string") return scrubString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `array(${value.length})` : "object";
  if (Array.isArray(value)) return value.slice(0, MAX_KEYS).map((v) => redactValue(v, rule, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .slice(0, MAX_KEYS)
      .map(([k, v]) => [k, rule.keys.test(k) ? REDACTED : redactValue(v, rule, depth + 1)]),
  );
}

/** A string with every credential-looking part blanked, cut to a bounded length. */
export function scrubString(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, REDACTED);
  return out.length > MAX_STRING ? `${out.slice(0, MAX_STRING)}…` : out;
}

export function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
