// Errors of the simulated outside world. The sandbox plays third-party systems (a payment provider, a
// mail service, a deploy system), so its wire format is theirs, not Tether's AppError: a closed set of
// lowercase codes, one HTTP status each, always sent as `{ "error": { "code", "message", "fields"? } }`.

export const SANDBOX_ERROR_STATUS = {
  invalid_input: 400,
  unauthorized: 401,
  declined: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unavailable: 503,
  timeout: 504,
  internal: 500,
} as const;

export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_STATUS;
export type SandboxFieldErrors = Record<string, string[]>;

export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  readonly fields?: SandboxFieldErrors;

  constructor(code: SandboxErrorCode, message: string, fields?: SandboxFieldErrors) {
    super(message);
    this.name = "SandboxError";
    this.code = code;
    this.fields = fields;
  }

  get status(): number {
    return SANDBOX_ERROR_STATUS[this.code];
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...(this.fields ? { fields: this.fields } : {}) } };
  }
}

export const notFound = (what: string, id: string) => new SandboxError("not_found", `No such ${what}: '${id}'.`);
