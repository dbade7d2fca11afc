import { ToolError, type ToolCallContext } from "@/lib/runtime";
import { SANDBOX_KEY_HEADER } from "@/lib/sandbox/internal-key";
import { sendHttp, type HttpErrorDetails } from "./http-outcome";

// The one way built-in tools reach the sandbox world over HTTP. Failures are classified as for every HTTP
// tool (http-outcome.ts: a ToolError whose `outcome` says whether the world may have changed anyway); an
// answer here must also be JSON.

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

type RequestOptions = { body?: unknown; headers?: Record<string, string> };

export type SandboxClient = {
  get: <T>(path: string, ctx: ToolCallContext) => Promise<T>;
  post: <T>(path: string, ctx: ToolCallContext, opts?: RequestOptions) => Promise<T>;
};

const DEFAULT_TIMEOUT_MS = 5_000;

export function createSandboxClient(opts: SandboxOptions): SandboxClient {
  const baseUrl = () =>
    (typeof opts.sandboxUrl === "function" ? opts.sandboxUrl() : opts.sandboxUrl).replace(/\/+$/, "");
  const sandboxKey = () => (typeof opts.sandboxKey === "function" ? opts.sandboxKey() : opts.sandboxKey);
  const request = async <T>(
    method: "GET" | "POST",
    path: string,
    ctx: ToolCallContext,
    req: RequestOptions = {},
  ): Promise<T> => {
    const key = sandboxKey();
    const headers: Record<string, string> = {
      accept: "application/json",
      "x-tether-run-id": ctx.runId,
      "x-tether-operation-id": ctx.operationId,
      ...(key ? { [SANDBOX_KEY_HEADER]: key } : {}),
      ...req.headers,
    };
    const what = `${method} ${path}`;
    const answer = await sendHttp(fetch, {
      method,
      url: baseUrl() + path,
      what,
      headers,
      body: req.body,
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    if (answer.payload === undefined)
      throw new ToolError("invalid_output", `${what}: HTTP ${answer.status} without a JSON body`, "unknown");
    return answer.payload as T;
  };
  return {
    get: (path, ctx) => request("GET", path, ctx),
    post: (path, ctx, req) => request("POST", path, ctx, req),
  };
}

/** The HTTP status of a refused tool call, read from an observation's data (see HttpErrorDetails). */
export function refusedStatus(data: unknown): number | undefined {
  const details = (data as { details?: Partial<HttpErrorDetails> } | undefined)?.details;
  return typeof details?.status === "number" ? details.status : undefined;
}

/** A path segment from a value a person or model supplied. */
export const seg = (value: string) => encodeURIComponent(value);
