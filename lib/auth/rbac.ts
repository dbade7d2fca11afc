// Who may do what in the console: one table from role to scopes, used on the server (requireScope,
// in every action and page guard) and in client components (can(), to hide what a person may not
// do — never the only check). Pure: no server imports, so client components can import it.
//
// The roles nest: an operator can do everything a reviewer can, an admin everything.
// (API bearer tokens have their own scopes: lib/api/scopes.ts.)
import { AppError } from "@/lib/runtime/errors";

export const ROLES = ["reviewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = [
  "runs:read", // the runs list, a run's trace, state and recovery view
  "packets:read", // the inbox and a packet's evidence
  "packets:decide", // approve, edit, reject, redirect a decision packet
  "runs:operate", // cancel, resume, retry, fork runs
  "admin:manage", // agents, tools, permissions, users, API tokens, the audit log
] as const;
export type Scope = (typeof SCOPES)[number];

const REVIEWER: Scope[] = ["runs:read", "packets:read", "packets:decide"];
const OPERATOR: Scope[] = [...REVIEWER, "runs:operate"];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  reviewer: REVIEWER,
  operator: OPERATOR,
  admin: SCOPES,
};

export const ROLE_LABELS: Record<Role, string> = { reviewer: "Reviewer", operator: "Operator", admin: "Admin" };

/** The person behind a console request, as the server resolved it (never trust one sent by a client). */
export type SessionUser = {
  id: string;
  email: string;
  name: string | null;
  /** Their role in `workspace` (lib/workspaces/members.ts). */
  role: Role;
  /** The workspace the request acts in; absent where none applies (sign-in, a decision link). */
  workspace?: { id: string; slug: string; name: string };
};

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Pure: may a person with this role use this scope? Safe in client components (to hide buttons). */
export function can(role: Role | null | undefined, scope: Scope): boolean {
  return !!role && ROLE_SCOPES[role].includes(scope);
}

/** Server check: returns the user when they may use the scope; UNAUTHENTICATED / FORBIDDEN otherwise. */
export function requireScope(user: SessionUser | null | undefined, scope: Scope): SessionUser {
  if (!user)
    throw new AppError("UNAUTHENTICATED", {
      message: "no session",
      userMessage: "Your session has ended. Sign in again.",
    });
  if (!can(user.role, scope)) {
    throw new AppError("FORBIDDEN", {
      message: `${user.email} (${user.role}) lacks ${scope}`,
      userMessage: `Your role (${ROLE_LABELS[user.role].toLowerCase()}) does not allow this.`,
    });
  }
  return user;
}
