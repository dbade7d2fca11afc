// Every server action has the same thin shape (STYLE.md): parse the input with zod → authenticate →
// authorize (scope) → the person's rate limit (as on the API's routes) → call one command (lib/commands) or
// domain function → return
//   { ok: true, data } | { ok: false, code, message, fieldErrors? }
// The client always branches on `ok`. A raw exception message never reaches the browser: AppErrors
// give their userMessage, anything else becomes INTERNAL and is logged on the server.
//
// Audit: the command writes the success row itself, in the change's own transaction (never after the
// commit, where a change could be left without its row); `audit: { action, byHandler: true }` names the
// action so that a refused attempt (FORBIDDEN) is audited as "<action>.denied". `audit: false` is for an
// action with no success row of its own; its refusals are still audited, as "<scope>.denied".
// Order: authentication and scope are checked before validation errors are reported, so a caller
// without the scope learns nothing about the input's shape.
import { revalidatePath as nextRevalidatePath } from "next/cache";
import { z } from "zod";
import { writeAudit } from "@/lib/audit/audit-log";
import { requireScope, type Scope, type SessionUser } from "@/lib/auth/rbac";
import { enforceRateLimit } from "@/lib/api/rate-limit";
import { getDb, type Db } from "@/lib/db";
import { inWorkspace } from "@/lib/runtime/workspace";
import { fieldErrorsFromIssues, isAppError, type ErrorCode, type FieldErrors } from "@/lib/runtime/errors";

export type ActionResult<T> =
  { ok: true; data: T } | { ok: false; code: ErrorCode; message: string; fieldErrors?: FieldErrors };

export type ActionContext = { user: SessionUser; db: Db; revalidatePath: (path: string) => void };

/** Where actions get the session, the database and revalidation. Tests replace it (setActionEnvironment). */
export type ActionEnvironment = {
  getUser: () => Promise<SessionUser | null>;
  getDb: () => Db;
  revalidatePath: (path: string) => void;
  logError: (message: string, error: unknown) => void;
};

const defaultEnvironment: ActionEnvironment = {
  // Imported lazily so this module (and tests of actions) does not load Auth.js until it is needed.
  getUser: async () => (await import("@/lib/auth/session")).getCurrentUser(),
  getDb,
  revalidatePath: (path) => nextRevalidatePath(path),
  logError: (message, error) => console.error(`[tether] ${message}`, error),
};
let environment = defaultEnvironment;

/** Tests: inject a session source (and a database, a revalidate spy); null restores the default. */
export function setActionEnvironment(overrides: Partial<ActionEnvironment> | null): void {
  environment = overrides ? { ...defaultEnvironment, ...overrides } : defaultEnvironment;
}

/** `byHandler`: the command writes the success row in its own transaction; `action` names the refusals. */
type AuditOption = false | { action: string; byHandler: true };

export function defineAction<S extends z.ZodType, O>(
  opts: { schema: S; scope: Scope; audit: AuditOption },
  handler: (input: z.output<S>, ctx: ActionContext) => Promise<O>,
): (input: z.input<S>) => Promise<ActionResult<O>> {
  const auditAction = opts.audit === false ? opts.scope : opts.audit.action;
  // A refusal is audited whatever the success path does (the command's row is only written on success).
  const deniedAction = `${auditAction}.denied`;
  return async (rawInput) => {
    const env = environment;
    let user: SessionUser | null = null;
    try {
      const parsed = opts.schema.safeParse(rawInput instanceof FormData ? formDataToObject(rawInput) : rawInput);
      user = await env.getUser();
      requireScope(user, opts.scope); // UNAUTHENTICATED before INVALID_INPUT: a stranger learns nothing
      const db = env.getDb();
      await enforceRateLimit([`person:${user!.email}`], db); // the person's bucket, shared with the API and the console's routes
      if (!parsed.success)
        return {
          ok: false,
          code: "INVALID_INPUT",
          message: "Check the highlighted fields.",
          fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
        };
      const data = await within(user, () =>
        handler(parsed.data, { user: user!, db, revalidatePath: env.revalidatePath }),
      );
      return { ok: true, data };
    } catch (error) {
      if (isAppError(error)) {
        if (error.code === "FORBIDDEN" && user) {
          await within(user, () =>
            writeAudit(env.getDb(), {
              actor: user!.email,
              action: deniedAction,
              data: { scope: opts.scope, role: user!.role },
            }),
          ).catch((e: unknown) => env.logError("audit write failed", e));
        }
        return {
          ok: false,
          code: error.code,
          message: error.userMessage,
          ...(error.fieldErrors ? { fieldErrors: error.fieldErrors } : {}),
        };
      }
      if (isNextControlFlow(error)) throw error; // redirect() / notFound() from a handler
      env.logError(`action ${auditAction} failed`, error);
      return {
        ok: false,
        code: "INTERNAL",
        message: "Something went wrong on the server. Try again; if it keeps failing, tell an admin.",
      };
    }
  };
}

/** The person's workspace (the page's URL): everything an action reads or writes is its own (lib/workspaces/scope.ts). */
function within<T>(user: SessionUser | null, fn: () => Promise<T>): Promise<T> {
  return user?.workspace ? inWorkspace(user.workspace.id, fn) : fn();
}

/** Forms post FormData: fields become an object (repeated names become arrays; Next's $ACTION keys are dropped). */
function formDataToObject(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    if (key.startsWith("$ACTION")) continue;
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function isNextControlFlow(error: unknown): boolean {
  const digest = (error as { digest?: unknown } | null)?.digest;
  return (
    typeof digest === "string" &&
    (digest.startsWith("NEXT_REDIRECT") ||
      digest.startsWith("NEXT_HTTP_ERROR_FALLBACK") ||
      digest === "DYNAMIC_SERVER_USAGE")
  );
}
