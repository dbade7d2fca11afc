import type { Scope } from "@/lib/auth/rbac";

// The console's sections, in sidebar order, each with the scope a person needs to see it (the page
// itself checks again on the server). Agents, Tools and Evals join here as they are built.
export const NAV_ITEMS: ReadonlyArray<{ href: string; label: string; description: string; scope: Scope }> = [
  { href: "/runs", label: "Runs", description: "Runs, trace timeline and state", scope: "runs:read" },
  { href: "/inbox", label: "Inbox", description: "Decision packets waiting for a person", scope: "packets:read" },
];
