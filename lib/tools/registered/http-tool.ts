import { ToolError, type ToolCallContext, type ToolDefinition } from "@/lib/runtime";
import { describeNetworkError, errorDetails, parseJson, type SandboxErrorDetails } from "@/lib/tools/http";
import { egressFetch, findEgressRefusal, type EgressFetch, type EgressPolicy } from "./egress";
import type { HttpToolConfig } from "./schemas";
import { fillUrl, resolveEnvRefs } from "./template";

// A registered HTTP tool: one request per call, failures mapped like the built-in tools (lib/tools/http.ts):
//   network error, timeout, 5xx → ToolError with outcome "unknown" (the request may have been applied)
//   4xx                          → "rejected", outcome "not_applied" (details carry the status)
// Arguments: `{{name}}` placeholders in the URL take their argument (URL-encoded); the rest go in a JSON
// body (POST/PUT/PATCH) or the query string (GET/DELETE). Every request names its run and operation
// (x-tether-run-id, x-tether-operation-id); an idempotent tool also sends the key in its configured header.
// Requests go through the egress policy (egress.ts): a refused host → ToolError "rejected", nothing sent.

const DEFAULT_TIMEOUT_MS = 5_000;

type Base = Pick<ToolDefinition, "name" | "description" | "capability" | "semantics" | "input" | "impact" | "registration">;

export type HttpToolOptions = {
  /** TETHER_TOOL_ALLOWED_HOSTS and node:dns, read at every call, unless given (tests). */
  egress?: EgressPolicy;
};

export function httpTool(base: Base, config: HttpToolConfig, opts: HttpToolOptions = {}): ToolDefinition {
  const timeout = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const send = egressFetch(opts.egress);
  const tool: ToolDefinition<Record<string, unknown>> = {
    ...base,
    run: async (args, ctx) => {
      const { url, used } = fillUrl(config.url, args);
      const rest = Object.fromEntries(Object.entries(args).filter(([key]) => !used.has(key)));
      const hasBody = config.method === "POST" || config.method === "PUT" || config.method === "PATCH";
      const headers = requestHeaders(config, ctx);
      if (config.idempotencyHeader) headers[config.idempotencyHeader.toLowerCase()] = ctx.idempotencyKey;
      const res = await request(send, config.method, hasBody ? url : withQuery(url, rest), { headers, body: hasBody ? rest : undefined, timeoutMs: timeout });
      // A 2xx without JSON still means the system acted: keep what it said.
      if (res.payload !== undefined) return res.payload;
      return res.text.trim() ? { status: res.status, text: res.text.slice(0, 10_000) } : { status: res.status };
    },
  };
  if (config.lookupUrl) {
    const lookupUrl = config.lookupUrl;
    tool.lookup = async (args, ctx) => {
      const { url } = fillUrl(lookupUrl, { ...args, operationId: ctx.operationId, idempotencyKey: ctx.idempotencyKey, runId: ctx.runId });
      try {
        const res = await request(send, "GET", url, { headers: requestHeaders(config, ctx), timeoutMs: timeout });
        if (res.payload === undefined && res.text.trim()) throw new ToolError("invalid_output", `lookup for ${base.name}: HTTP ${res.status} without a JSON body`, "unknown");
        return foundOrNull(res.payload);
      } catch (error) {
        if (error instanceof ToolError && (error.details as SandboxErrorDetails | undefined)?.status === 404) return null;
        throw error;
      }
    };
  }
  return tool;
}

function requestHeaders(config: HttpToolConfig, ctx: ToolCallContext): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json" };
  for (const [name, value] of Object.entries(config.headers ?? {})) headers[name.toLowerCase()] = resolveEnvRefs(value);
  headers["x-tether-run-id"] = ctx.runId;
  headers["x-tether-operation-id"] = ctx.operationId;
  return headers;
}

/** A lookup's answer: 404 (above), an empty body, null, [] or {} mean "never happened"; a list gives its first item. */
function foundOrNull(payload: unknown): unknown {
  if (payload === null || payload === undefined) return null;
  if (Array.isArray(payload)) return payload.length ? payload[0] : null;
  if (typeof payload === "object" && Object.keys(payload).length === 0) return null;
  return payload;
}

function withQuery(url: string, args: Record<string, unknown>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) target.searchParams.append(key, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return target.toString();
}

type RawResponse = { status: number; payload: unknown; text: string };

async function request(send: EgressFetch, method: string, url: string, opts: { headers: Record<string, string>; body?: unknown; timeoutMs: number }): Promise<RawResponse> {
  const what = `${method} ${safeUrl(url)}`;
  const headers = { ...opts.headers };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await send(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: AbortSignal.timeout(opts.timeoutMs), redirect: "manual" });
  } catch (error) {
    // Refused by the egress policy: no connection was made.
    const refused = findEgressRefusal(error);
    if (refused) throw new ToolError("rejected", `${what}: ${refused.message}`, "not_applied", { code: "EGRESS_REFUSED", message: refused.message });
    // The request may or may not have reached the system: the classic unknown outcome.
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    throw new ToolError(timedOut ? "timeout" : "network", `${what}: ${timedOut ? "no answer in time" : describeNetworkError(error)}`, "unknown");
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    // The status arrived but the body did not: the system may have acted.
    throw new ToolError("network", `${what}: HTTP ${res.status}, the response body was cut off`, "unknown");
  }
  const payload = parseJson(text);
  if (res.status >= 400) {
    const details = errorDetails(res.status, payload);
    const summary = `${what}: HTTP ${res.status}${details.code ? ` ${details.code}` : ""}${details.message ? ` — ${details.message}` : ""}`;
    if (res.status >= 500) throw new ToolError("server", summary, "unknown", details);
    throw new ToolError("rejected", summary, "not_applied", details);
  }
  if (res.status >= 300) {
    // Redirects are not followed. After a GET nothing changed; after a write, a 303 "see other" often means it was applied.
    const details = { status: res.status, code: null, message: null };
    if (method === "GET") throw new ToolError("rejected", `${what}: HTTP ${res.status} redirect (not followed)`, "not_applied", details);
    throw new ToolError("invalid_output", `${what}: HTTP ${res.status} redirect (not followed); the request may have been applied`, "unknown", details);
  }
  return { status: res.status, payload, text };
}

/** A URL for messages and traces: no query string (it may carry personal data or tokens). */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

