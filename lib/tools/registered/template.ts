// `{{name}}` placeholders in a registered tool's URLs, impact sentence and secret-bearing settings.
//   URL        https://crm.example.com/customers/{{customerId}}   — filled from the arguments, URL-encoded
//   lookup URL …/sent?operation={{operationId}}                    — also operationId, idempotencyKey, runId
//   impact     "updates customer {{customerId}} in the CRM"        — filled from the arguments as text
//   secrets    "Bearer {{env.TETHER_TOOL_CRM_TOKEN}}"              — a header or MCP env value read from the
//              process environment at call time, so the secret is never stored; only TETHER_TOOL_* names.

import { toolEnvironment, TOOL_ENV_PREFIX, type Env } from "@/lib/config";

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/**
 * Whether a URL template has a placeholder (or any "{{") before its path — in the scheme, user info,
 * host or port. Only the path and query may take arguments: where a request goes is the admin's
 * choice, never the model's.
 */
export function placeholderBeforePath(template: string): boolean {
  if (!template.includes("{{")) return false;
  // scheme, any run of slashes (http:///host parses as http://host) and the authority, as written
  const authority = /^[^:/?#]*:[\\/]*[^/?#\\]*/.exec(template)?.[0] ?? template;
  if (authority.includes("{{")) return true;
  // and as the URL parser reads it
  const marker = "tetherplaceholder";
  try {
    const u = new URL(template.replaceAll("{{", marker));
    return `${u.protocol}//${u.username}:${u.password}@${u.host}`.toLowerCase().includes(marker);
  } catch {
    return true;
  }
}

/** Variables a lookup URL may use besides the arguments: they name the operation being looked up. */
export const CALL_VARIABLES = ["operationId", "idempotencyKey", "runId"] as const;

export const ENV_PREFIX = TOOL_ENV_PREFIX;

export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/** A URL with its placeholders filled, each value URL-encoded. Returns the names it used. */
export function fillUrl(template: string, values: Record<string, unknown>): { url: string; used: Set<string> } {
  const used = new Set<string>();
  const url = template.replace(PLACEHOLDER, (_, name: string) => {
    used.add(name);
    const value = values[name];
    return value === undefined || value === null
      ? ""
      : encodeURIComponent(typeof value === "object" ? JSON.stringify(value) : String(value));
  });
  return { url, used };
}

/** A sentence with its placeholders filled from the arguments ("?" for a missing one). */
export function fillText(template: string, values: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = name
      .split(".")
      .reduce<unknown>(
        (v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined),
        values,
      );
    if (value === undefined || value === null) return "?";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}

/** `{{env.TETHER_TOOL_X}}` references in a setting, resolved from the environment at call time. */
export function resolveEnvRefs(value: string, env: Env = toolEnvironment()): string {
  return value.replace(PLACEHOLDER, (whole, name: string) =>
    name.startsWith(`env.${ENV_PREFIX}`) ? (env[name.slice(4)] ?? "") : whole,
  );
}

/** Environment references that are not allowed (anything outside TETHER_TOOL_*), for validation. */
export function forbiddenEnvRefs(value: string): string[] {
  return placeholders(value).filter((name) => name.startsWith("env.") && !name.startsWith(`env.${ENV_PREFIX}`));
}
