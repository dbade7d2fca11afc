import type { Scope } from "@/lib/auth/rbac";

// The console's sections, in sidebar order, each with the scope a person needs to see it (the page
// itself checks again on the server). `group` splits the sidebar into the daily work and administration.
export type NavItem = { href: string; label: string; description: string; scope: Scope; group: "work" | "admin" };

export const NAV_ITEMS: ReadonlyArray<NavItem> = [
  {
    href: "/inbox",
    label: "Inbox",
    description: "Decision packets waiting for a person",
    scope: "packets:read",
    group: "work",
  },
  { href: "/runs", label: "Runs", description: "Runs, trace timeline and state", scope: "runs:read", group: "work" },
  {
    href: "/schedules",
    label: "Schedules",
    description: "Runs started on a cron schedule: next fires and history",
    scope: "runs:read",
    group: "work",
  },
  {
    href: "/evals",
    label: "Evals",
    description: "Journey evals: datasets, eval runs, scores",
    scope: "runs:read",
    group: "work",
  },
  {
    href: "/admin/agents",
    label: "Agents",
    description: "Agents and their versions",
    scope: "admin:manage",
    group: "admin",
  },
  { href: "/admin/tools", label: "Tools", description: "The tool registry", scope: "admin:manage", group: "admin" },
  {
    href: "/admin/permissions",
    label: "Permissions",
    description: "Agent × tool permission matrix and its history",
    scope: "admin:manage",
    group: "admin",
  },
  {
    href: "/admin/workspaces",
    label: "Workspaces",
    description: "This workspace's people, and the other workspaces",
    scope: "admin:manage",
    group: "admin",
  },
  {
    href: "/admin/users",
    label: "Users",
    description: "People and their roles",
    scope: "admin:manage",
    group: "admin",
  },
  {
    href: "/admin/tokens",
    label: "API tokens",
    description: "Bearer tokens for the HTTP API",
    scope: "admin:manage",
    group: "admin",
  },
  {
    href: "/admin/audit",
    label: "Audit log",
    description: "Who did what, filtered, with its export",
    scope: "admin:manage",
    group: "admin",
  },
];
