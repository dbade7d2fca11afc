import Link from "next/link";
import { workspacePath } from "@/lib/workspaces/paths";

export type SwitchableWorkspace = { slug: string; name: string; role: string };

// Which workspace the console shows, and the others the person may open. A plain list of links (no script):
// each leads to the same section's start in that workspace, whose URL carries its slug.
export function WorkspaceSwitcher({ current, workspaces }: { current: string; workspaces: SwitchableWorkspace[] }) {
  const here = workspaces.find((w) => w.slug === current);
  const others = workspaces.filter((w) => w.slug !== current);
  return (
    <section aria-label="Workspace" className="mb-5 px-3">
      <p className="text-xs font-medium uppercase tracking-wide text-zinc-400">Workspace</p>
      <p className="truncate text-sm font-medium text-zinc-100" title={current}>
        {here?.name ?? current}
      </p>
      {others.length > 0 && (
        <details className="mt-1 text-xs text-zinc-300">
          <summary className="cursor-pointer hover:text-white">Switch workspace</summary>
          <ul className="mt-1 space-y-0.5">
            {others.map((w) => (
              <li key={w.slug}>
                <Link
                  href={workspacePath(w.slug, "/inbox")}
                  className="block truncate rounded px-1 py-0.5 hover:bg-zinc-900 hover:text-white"
                >
                  {w.name} <span className="text-zinc-500">· {w.role}</span>
                </Link>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
