// What an API token may do. One place for the names; `admin` implies every other scope.
export const API_SCOPES = ["runs:write", "runs:read", "signals:write", "packets:decide", "admin"] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export function hasScope(granted: readonly string[], needed: ApiScope): boolean {
  return granted.includes("admin") || granted.includes(needed);
}
