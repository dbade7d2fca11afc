import { tryParseJson } from "@/lib/client/json";
import { ToolError } from "@/lib/runtime";

// How one HTTP request of a tool ends: the one classifier for the built-in tools' sandbox client (http.ts)
// and an admin's registered HTTP tools (registered/http-tool.ts). Every failure becomes a ToolError whose
// `outcome` says whether the world may have changed anyway:
//   network error, timeout                 → "unknown" (the request may have been applied)
//   a status whose body was cut off        → "network", "unknown" (the system may have acted)
//   5xx                                    → "server", "unknown"
//   4xx                                    → "rejected", "not_applied" (details carry the status, code, message)
//   3xx, never followed                    → after a GET "rejected", "not_applied" (nothing changed);
//                                            after a write "invalid_output", "unknown" (a 303 often means applied)

/** What a refused request carries, so a policy can tell "declined" (402) from "not found" (404). */
export type HttpErrorDetails = { status: number; code: string | null; message: string | null };

/** A 2xx answer: its status, its body as JSON (undefined when it is not JSON) and as text. */
export type HttpAnswer = { status: number; payload: unknown; text: string };

export type HttpRequest = {
  method: string;
  url: string;
  /** How messages name the request: "GET /orders/ord_1". */
  what: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  timeoutMs: number;
};

export type HttpSend = (url: string, init: RequestInit) => Promise<Response>;

/** Sends the request once (redirects not followed) and returns its 2xx answer, or throws the ToolError above. */
export async function sendHttp(
  send: HttpSend,
  request: HttpRequest,
  /** A failure to send that is a refusal of the caller's own (the egress policy): nothing was sent. */
  refusal?: (error: unknown) => ToolError | undefined,
): Promise<HttpAnswer> {
  const { method, what } = request;
  const headers = { ...request.headers };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await send(request.url, {
      method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(request.timeoutMs),
      redirect: "manual",
    });
  } catch (error) {
    const refused = refusal?.(error);
    if (refused) throw refused;
    // The request may or may not have reached the system: the classic unknown outcome.
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    throw new ToolError(
      timedOut ? "timeout" : "network",
      `${what}: ${timedOut ? "no answer in time" : describeNetworkError(error)}`,
      "unknown",
    );
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    // The status arrived but the body did not: the system may have acted.
    throw new ToolError("network", `${what}: HTTP ${res.status}, the response body was cut off`, "unknown");
  }
  const payload = tryParseJson(text);
  if (res.status >= 400) {
    const details = errorDetails(res.status, payload);
    const summary = `${what}: HTTP ${res.status}${details.code ? ` ${details.code}` : ""}${details.message ? ` — ${details.message}` : ""}`;
    if (res.status >= 500) throw new ToolError("server", summary, "unknown", details);
    throw new ToolError("rejected", summary, "not_applied", details);
  }
  if (res.status >= 300) {
    const details: HttpErrorDetails = { status: res.status, code: null, message: null };
    if (method === "GET")
      throw new ToolError("rejected", `${what}: HTTP ${res.status} redirect (not followed)`, "not_applied", details);
    throw new ToolError(
      "invalid_output",
      `${what}: HTTP ${res.status} redirect (not followed); the request may have been applied`,
      "unknown",
      details,
    );
  }
  return { status: res.status, payload, text };
}

/** `{ error: { code, message } }` or `{ error: "message" }`, the two shapes APIs answer errors in. */
function errorDetails(status: number, payload: unknown): HttpErrorDetails {
  const error = (payload as { error?: unknown } | undefined)?.error;
  if (error && typeof error === "object") {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return {
      status,
      code: typeof code === "string" ? code : null,
      message: typeof message === "string" ? message : null,
    };
  }
  return { status, code: null, message: typeof error === "string" ? error : null };
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
