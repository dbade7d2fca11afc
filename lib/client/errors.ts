// An error answer of Tether's API (`{ error: { code, message, fieldErrors? } }`), or no answer at all.

export type FieldErrors = Record<string, string[]>;

export class TetherApiError extends Error {
  readonly name = "TetherApiError";
  /** The API's code (INVALID_INPUT, CONFLICT, NOT_FOUND, UNAUTHENTICATED, FORBIDDEN, RATE_LIMITED…), or NETWORK_ERROR when no answer came. */
  readonly code: string;
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** Per field, what is wrong with it (on a 400). */
  readonly fieldErrors?: FieldErrors;

  constructor(opts: { code: string; status: number; message: string; fieldErrors?: FieldErrors; cause?: unknown }) {
    super(opts.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = opts.code;
    this.status = opts.status;
    this.fieldErrors = opts.fieldErrors;
  }

  /** Worth asking again later: no answer, rate limited, or the server (or a proxy before it) failed. */
  get isTransient(): boolean {
    return (
      this.status === 0 || this.status === 429 || this.status === 502 || this.status === 503 || this.status === 504
    );
  }
}
