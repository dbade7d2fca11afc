import { ConsoleLink } from "@/components/shell/console-links";
import { ROLE_LABELS, type Role, type Scope } from "@/lib/auth/rbac";

// What a page shows a signed-in person whose role does not allow it (lib/auth/session.ts requirePageScope).
export function AccessDenied({ role, scope }: { role: Role; scope: Scope }) {
  return (
    <div role="status" className="rounded-lg border border-zinc-200 bg-white p-6">
      <h1 className="text-base font-semibold text-zinc-900">You don&apos;t have access to this page</h1>
      <p className="mt-1 text-sm text-zinc-600">
        It needs the <code className="rounded bg-zinc-100 px-1 font-mono text-xs">{scope}</code> permission, which your
        role ({ROLE_LABELS[role].toLowerCase()}) does not have. Ask an admin if you need it.
      </p>
      <ConsoleLink href="/runs" className="mt-4 inline-block text-sm text-blue-700 hover:underline">
        Go to runs
      </ConsoleLink>
    </div>
  );
}
