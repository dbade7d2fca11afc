import type { ApiScope } from "@/lib/api/scopes";

export const SCOPE_HINTS: Record<ApiScope, string> = {
  "runs:write": "start, cancel and resume runs",
  "runs:read": "read runs, traces and packets",
  "signals:write": "deliver callbacks and events to runs",
  "packets:decide": "approve, edit, reject, redirect packets",
  "metrics:read": "scrape Prometheus metrics (GET /api/metrics)",
  "gates:request": "ask for open gates and report their outcomes (POST /api/gates)",
  "schedules:read": "list schedules, their next ticks and fires",
  "schedules:write": "create, change, pause and delete schedules",
  admin: "everything, including the tool registry",
};
