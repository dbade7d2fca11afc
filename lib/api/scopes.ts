// What an API token may do. One place for the names; `admin` implies every other scope.
// metrics:read: scrape GET /api/metrics (Prometheus); operators and admins, as a monitoring system's token.
// gates:request: ask for open gates and report their outcomes (POST /api/gates…); operators and admins.
// schedules:read / schedules:write: list schedules and their fires; create, change, pause and delete them (operators).
import type { Role } from "@/lib/auth/rbac";

export const API_SCOPES = [
  "runs:write",
  "runs:read",
  "signals:write",
  "packets:decide",
  "metrics:read",
  "gates:request",
  "schedules:read",
  "schedules:write",
  "admin",
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export function hasScope(granted: readonly string[], needed: ApiScope): boolean {
  return granted.includes("admin") || granted.includes(needed);
}

/** The API scopes a person's role allows their tokens: a token acts as its owner, never as more. */
export const ROLE_API_SCOPES: Record<Role, readonly ApiScope[]> = {
  reviewer: ["runs:read", "packets:decide", "schedules:read"],
  operator: [
    "runs:read",
    "packets:decide",
    "runs:write",
    "signals:write",
    "metrics:read",
    "gates:request",
    "schedules:read",
    "schedules:write",
  ],
  admin: API_SCOPES,
};

/** A token's scopes as its owner's role allows them today (a demoted owner's admin token keeps only what the new role may). */
export function scopesWithinRole(scopes: readonly ApiScope[], role: Role): ApiScope[] {
  if (role === "admin") return [...scopes];
  const allowed = ROLE_API_SCOPES[role];
  const wanted = scopes.includes("admin") ? API_SCOPES.filter((s) => s !== "admin") : scopes;
  return wanted.filter((scope) => allowed.includes(scope));
}
