import { isAppError, type AppError } from "@/lib/runtime/errors";

// JSON-RPC 2.0 and A2A errors (A2A 1.0 §5.4 and §9.5). `data` carries google.rpc detail objects, each
// with its "@type", as the spec asks: BadRequest with the field violations, ErrorInfo with a reason.

export const JSONRPC_ERRORS = {
  parse: { code: -32700, message: "Invalid JSON payload" },
  invalidRequest: { code: -32600, message: "Request payload validation error" },
  methodNotFound: { code: -32601, message: "Method not found" },
  invalidParams: { code: -32602, message: "Invalid parameters" },
  internal: { code: -32603, message: "Internal error" },
  taskNotFound: { code: -32001, message: "Task not found" },
  taskNotCancelable: { code: -32002, message: "Task cannot be canceled" },
  pushNotificationNotSupported: { code: -32003, message: "Push Notification is not supported" },
  unsupportedOperation: { code: -32004, message: "This operation is not supported" },
  contentTypeNotSupported: { code: -32005, message: "Incompatible content types" },
  versionNotSupported: { code: -32009, message: "Protocol version is not supported" },
  /** Implementation-defined server error (JSON-RPC's -32000): authentication, authorization, conflicts. */
  server: { code: -32000, message: "Server error" },
} as const;

type ErrorKind = keyof typeof JSONRPC_ERRORS;
type Detail = Record<string, unknown> & { "@type": string };

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";

/** An error the A2A endpoint answers with: its JSON-RPC code, a message for the caller, details, and the HTTP status. */
export class A2aError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string = JSONRPC_ERRORS[kind].message,
    readonly details: Detail[] = [],
    readonly httpStatus = 200,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get code(): number {
    return JSONRPC_ERRORS[this.kind].code;
  }

  toJSON() {
    return { code: this.code, message: this.message, ...(this.details.length ? { data: this.details } : {}) };
  }
}

export const errorInfo = (reason: string, metadata: Record<string, string> = {}): Detail => ({
  "@type": ERROR_INFO,
  reason,
  domain: "tether",
  metadata,
});

/** -32602 naming each field that failed and why. */
export function invalidParams(fieldErrors: Record<string, string[]>, message = "Invalid parameters"): A2aError {
  const fieldViolations = Object.entries(fieldErrors).flatMap(([field, messages]) =>
    messages.map((description) => ({ field, description })),
  );
  return new A2aError("invalidParams", message, [{ "@type": BAD_REQUEST, fieldViolations }]);
}

export const taskNotFound = (taskId: string) =>
  new A2aError("taskNotFound", `Task not found: ${taskId}`, [errorInfo("TASK_NOT_FOUND", { taskId })]);

/** Tether's AppError as the A2A error a client can act on; a raw exception message never leaves the server. */
export function fromAppError(error: AppError): A2aError {
  const info = errorInfo(error.code);
  switch (error.code) {
    case "INVALID_INPUT":
      return error.fieldErrors
        ? invalidParams(error.fieldErrors, error.userMessage)
        : new A2aError("invalidParams", error.userMessage, [info]);
    case "NOT_FOUND":
      return new A2aError("invalidParams", error.userMessage, [info]);
    case "UNAUTHENTICATED":
      return new A2aError("server", error.userMessage, [info], 401, { "www-authenticate": 'Bearer realm="tether"' });
    case "FORBIDDEN":
      return new A2aError("server", error.userMessage, [info]);
    case "RATE_LIMITED":
      return new A2aError(
        "server",
        error.userMessage,
        [info],
        429,
        error.retryAfterSeconds !== undefined ? { "retry-after": String(error.retryAfterSeconds) } : {},
      );
    case "INTERNAL":
      return new A2aError("internal", JSONRPC_ERRORS.internal.message);
    default:
      // Conflicts and refusals of the runtime (already decided, expired, stale, queue full…): said as they are.
      return new A2aError("server", error.userMessage, [info]);
  }
}

/** Whatever was thrown, as an A2aError (an unexpected one is logged and answered as -32603). */
export function toA2aError(error: unknown): A2aError {
  if (error instanceof A2aError) return error;
  if (isAppError(error)) return fromAppError(error);
  console.error("[tether] unexpected A2A error", error);
  return new A2aError("internal");
}
