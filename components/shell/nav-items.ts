// The console's sections, in sidebar order. Agents, Tools and Evals join here as they are built.
export const NAV_ITEMS: ReadonlyArray<{ href: string; label: string; description: string }> = [
  { href: "/runs", label: "Runs", description: "Runs, trace timeline and state" },
  { href: "/inbox", label: "Inbox", description: "Decision packets waiting for a person" },
];
