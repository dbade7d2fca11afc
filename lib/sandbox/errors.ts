import { AppError, type ErrorCode, type FieldErrors } from "@/lib/runtime/errors";

// Errors of the simulated outside world. They are AppErrors (lib/runtime/errors.ts); only how they are
// answered is the sandbox's own. The sandbox plays third-party systems (a payment provider, a mail service, a
// deploy system), so its wire format is theirs, not the HTTP API's: a closed set of lowercase codes, one HTTP
// status each, always sent as `{ "error": { "code", "message", "fields"? } }` (README.md, "Wire format").

/** The codes the sandbox answers with, as its wire names them. INTERNAL is not one: see presentSandboxError. */
const WIRE_CODES = {
  INVALID_INPUT: "invalid_input",
  UNAUTHENTICATED: "unauthorized",
  DECLINED: "declined",
  FORBIDDEN: "forbidden",
  NOT_FOUND: "not_found",
  METHOD_NOT_ALLOWED: "method_not_allowed",
  CONFLICT: "conflict",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  UNAVAILABLE: "unavailable",
  TIMEOUT: "timeout",
} as const satisfies Partial<Record<ErrorCode, string>>;

export type SandboxErrorCode = keyof typeof WIRE_CODES;

/** An error the sandbox answers as itself; `fields` (invalid input): `{ "path": ["message"] }`. */
export function sandboxError(code: SandboxErrorCode, message: string, fields?: FieldErrors): AppError {
  return new AppError(code, { message, ...(fields ? { fieldErrors: fields } : {}) });
}

export const notFound = (what: string, id: string) => sandboxError("NOT_FOUND", `No such ${what}: '${id}'.`);

export type SandboxErrorBody = { error: { code: string; message: string; fields?: FieldErrors } };

/** The generic 500: no exception text leaves the process. */
export const INTERNAL_ERROR: { status: number; body: SandboxErrorBody } = {
  status: 500,
  body: { error: { code: "internal", message: "The sandbox failed unexpectedly." } },
};

/**
 * An error as the sandbox answers it. Only an AppError with one of the sandbox's codes is shown as itself;
 * anything else — another AppError code (INTERNAL included, whose message may hold exception text) or any
 * other error — is an unexpected failure: null, answered with INTERNAL_ERROR.
 */
export function presentSandboxError(error: unknown): { status: number; body: SandboxErrorBody } | null {
  if (!(error instanceof AppError) || !Object.hasOwn(WIRE_CODES, error.code)) return null;
  const code = WIRE_CODES[error.code as SandboxErrorCode];
  return {
    status: error.httpStatus,
    body: { error: { code, message: error.message, ...(error.fieldErrors ? { fields: error.fieldErrors } : {}) } },
  };
}
