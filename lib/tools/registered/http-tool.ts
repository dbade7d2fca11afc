import { ToolError, type ToolCallContext, type ToolDefinition } from "@/lib/runtime";
import { sendHttp, type HttpAnswer, type HttpErrorDetails } from "@/lib/tools/http-outcome";
import { egressFetch, findEgressRefusal, type EgressFetch, type EgressPolicy } from "./egress";
import type { HttpToolConfig } from "./schemas";
import { fillUrl, resolveEnvRefs } from "./template";

// A registered HTTP tool: one request per call, failures classified as for the built-in tools
// (lib/tools/http-outcome.ts: network error, timeout, 5xx, a cut-off body → outcome "unknown"; 4xx →
// "rejected", "not_applied"; redirects are not followed).
// Arguments: `{{name}}` placeholders in the URL take their argument (URL-encoded); the rest go in a JSON
// body (POST/PUT/PATCH) or the query string (GET/DELETE). Every request names its run and operation
// (x-tether-run-id, x-tether-operation-id); an idempotent tool also sends the key in its configured header.
// Requests go through the egress policy (egress.ts): a refused host → ToolError "rejected", nothing sent.

const DEFAULT_TIMEOUT_MS = 5_000;

type Base = Pick<
  ToolDefinition,
  "name" | "description" | "capability" | "semantics" | "input" | "impact" | "registration"
>;

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
      const res = await request(send, config.method, hasBody ? url : withQuery(url, rest), {
        headers,
        body: hasBody ? rest : undefined,
        timeoutMs: timeout,
      });
      // A 2xx without JSON still means the system acted: keep what it said.
      if (res.payload !== undefined) return res.payload;
      return res.text.trim() ? { status: res.status, text: res.text.slice(0, 10_000) } : { status: res.status };
    },
  };
  if (config.lookupUrl) {
    const lookupUrl = config.lookupUrl;
    tool.lookup = async (args, ctx) => {
      const { url } = fillUrl(lookupUrl, {
        ...args,
        operationId: ctx.operationId,
        idempotencyKey: ctx.idempotencyKey,
        runId: ctx.runId,
      });
      try {
        const res = await request(send, "GET", url, { headers: requestHeaders(config, ctx), timeoutMs: timeout });
        if (res.payload === undefined && res.text.trim())
          throw new ToolError(
            "invalid_output",
            `lookup for ${base.name}: HTTP ${res.status} without a JSON body`,
            "unknown",
          );
        return foundOrNull(res.payload);
      } catch (error) {
        if (error instanceof ToolError && (error.details as HttpErrorDetails | undefined)?.status === 404) return null;
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

function request(
  send: EgressFetch,
  method: string,
  url: string,
  opts: { headers: Record<string, string>; body?: unknown; timeoutMs: number },
): Promise<HttpAnswer> {
  const what = `${method} ${safeUrl(url)}`;
  // Refused by the egress policy: no connection was made.
  const refusal = (error: unknown) => {
    const refused = findEgressRefusal(error);
    return refused
      ? new ToolError("rejected", `${what}: ${refused.message}`, "not_applied", {
          code: "EGRESS_REFUSED",
          message: refused.message,
        })
      : undefined;
  };
  return sendHttp(send, { method, url, what, ...opts }, refusal);
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
