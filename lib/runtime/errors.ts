// One error type for domain and runtime code, with a closed set of codes.
// `message` is for logs and developers; `userMessage` is safe to show to a person.
// The sandbox world throws these too, and answers them in its own wire format (lib/sandbox/errors.ts).

export const ERROR_HTTP_STATUS = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PACKET_ALREADY_DECIDED: 409,
  PACKET_EXPIRED: 409,
  PACKET_STALE: 409,
  RUN_NOT_WAITING: 409,
  CALLS_IN_DOUBT: 409,
  LEASE_LOST: 409,
  PERMISSIONS_CHANGED: 409,
  APPROVAL_MISMATCH: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  UNKNOWN_TOOL: 422,
  INVALID_STATE: 422,
  INTERNAL: 500,
  // Answered by the sandbox's simulated outside systems (lib/sandbox/errors.ts).
  /** A payment provider's refusal: a refund over what is left, a declined card. */
  DECLINED: 402,
  METHOD_NOT_ALLOWED: 405,
  /** Nothing was applied: try again later. */
  UNAVAILABLE: 503,
  /** A gateway's answer when the system behind it never did: it may or may not have acted. */
  TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_HTTP_STATUS;

export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly userMessage: string;
  readonly fieldErrors?: FieldErrors;
  /** RATE_LIMITED: when to try again (the HTTP answer's Retry-After). */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    opts: {
      message: string;
      userMessage?: string;
      fieldErrors?: FieldErrors;
      retryAfterSeconds?: number;
      cause?: unknown;
    },
  ) {
    super(opts.message, { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    this.userMessage = opts.userMessage ?? opts.message;
    this.fieldErrors = opts.fieldErrors;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  get httpStatus(): number {
    return ERROR_HTTP_STATUS[this.code];
  }
}

export function isAppError(error: unknown, code?: ErrorCode): error is AppError {
  return error instanceof AppError && (code === undefined || error.code === code);
}

/** zod issues → `{ "path.to.field": ["message"] }`, the shape forms and API clients consume. */
export function fieldErrorsFromIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join(".") || "_";
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

type SafeParser<T> = {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
};

/**
 * The one way a command, a domain function or the engine refuses input its schema does not accept: the input as
 * `schema` reads it, or INVALID_INPUT ("invalid <what>", shown as "The <what> is invalid." unless told) with the
 * schema's messages by field, for the form or the API client to show next to each.
 */
export function parseInput<T>(
  schema: SafeParser<T>,
  input: unknown,
  what: string,
  userMessage = `The ${what} is invalid.`,
): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new AppError("INVALID_INPUT", {
    message: `invalid ${what}`,
    userMessage,
    fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
  });
}
