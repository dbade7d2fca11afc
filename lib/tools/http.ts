import { ToolError, type ToolCallContext } from "@/lib/runtime";
import { SANDBOX_KEY_HEADER } from "@/lib/sandbox/internal-key";

// The one way built-in tools reach the sandbox world over HTTP. Every failure becomes a ToolError
// whose `outcome` says whether the world may have changed anyway:
//   network error, timeout, 5xx → "unknown" (the request may have been applied)
//   4xx                          → "not_applied" (the system refused it; details carry the status)

export type SandboxOptions = {
  /** e.g. http://127.0.0.1:3000/api/sandbox; a function is read at every call (late-bound ports). */
  sandboxUrl: string | (() => string);
  /** Per request; a request that takes longer is abandoned with an unknown outcome. Default 5 s. */
  timeoutMs?: number;
  /**
   * The sandbox's internal credential, sent as X-Tether-Sandbox-Key (lib/sandbox/internal-key.ts); a
   * function is read at every call. Unset (or undefined): no credential, for a sandbox that needs none
   * (startSandboxServer's default).
   */
  sandboxKey?: string | (() => string | undefined);
};

/** What a refused request carries, so a policy can tell "declined" (402) from "not found" (404). */
export type SandboxErrorDetails = { status: number; code: string | null; message: string | null };

type RequestOptions = { body?: unknown; headers?: Record<string, string> };

export type SandboxClient = {
  get: <T>(path: string, ctx: ToolCallContext) => Promise<T>;
  post: <T>(path: string, ctx: ToolCallContext, opts?: RequestOptions) => Promise<T>;
};

const DEFAULT_TIMEOUT_MS = 5_000;

export function createSandboxClient(opts: SandboxOptions): SandboxClient {
  const baseUrl = () => (typeof opts.sandboxUrl === "function" ? opts.sandboxUrl() : opts.sandboxUrl).replace(/\/+$/, "");
  const sandboxKey = () => (typeof opts.sandboxKey === "function" ? opts.sandboxKey() : opts.sandboxKey);
  const request = async <T>(method: "GET" | "POST", path: string, ctx: ToolCallContext, req: RequestOptions = {}): Promise<T> => {
    const key = sandboxKey();
    const headers: Record<string, string> = {
      accept: "application/json",
      "x-tether-run-id": ctx.runId,
      "x-tether-operation-id": ctx.operationId,
      ...(key ? { [SANDBOX_KEY_HEADER]: key } : {}),
      ...req.headers,
    };
    if (req.body !== undefined) headers["content-type"] = "application/json";
    const what = `${method} ${path}`;
    let res: Response;
    try {
      res = await fetch(baseUrl() + path, {
        method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      // The request may or may not have reached the system: the classic unknown outcome.
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new ToolError(timedOut ? "timeout" : "network", `${what}: ${timedOut ? "no answer in time" : describeNetworkError(error)}`, "unknown");
    }
    const text = await res.text().catch(() => "");
    const payload = parseJson(text);
    if (res.status >= 400) {
      const details = errorDetails(res.status, payload);
      const summary = `${what}: HTTP ${res.status}${details.code ? ` ${details.code}` : ""}${details.message ? ` — ${details.message}` : ""}`;
      if (res.status >= 500) throw new ToolError("server", summary, "unknown", details);
      throw new ToolError("rejected", summary, "not_applied", details);
    }
    if (payload === undefined) throw new ToolError("invalid_output", `${what}: HTTP ${res.status} without a JSON body`, "unknown");
    return payload as T;
  };
  return {
    get: (path, ctx) => request("GET", path, ctx),
    post: (path, ctx, req) => request("POST", path, ctx, req),
  };
}

/** The HTTP status of a refused tool call, read from an observation's data (see SandboxErrorDetails). */
export function refusedStatus(data: unknown): number | undefined {
  const details = (data as { details?: Partial<SandboxErrorDetails> } | undefined)?.details;
  return typeof details?.status === "number" ? details.status : undefined;
}

/** A path segment from a value a person or model supplied. */
export const seg = (value: string) => encodeURIComponent(value);

export function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function errorDetails(status: number, payload: unknown): SandboxErrorDetails {
  const error = (payload as { error?: unknown } | undefined)?.error;
  if (error && typeof error === "object") {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { status, code: typeof code === "string" ? code : null, message: typeof message === "string" ? message : null };
  }
  return { status, code: null, message: typeof error === "string" ? error : null };
}

export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
