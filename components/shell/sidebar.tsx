import Link from "next/link";
import { can, type SessionUser } from "@/lib/auth/rbac";
import { workspacePath } from "@/lib/workspaces/paths";
import { InboxCount } from "./inbox-count";
import { NAV_ITEMS } from "./nav-items";
import { NavLink } from "./nav-link";

const NAV_GROUPS = [
  { group: "work", label: null },
  { group: "admin", label: "Admin" },
] as const;
import { UserMenu } from "./user-menu";
import { WorkspaceSwitcher, type SwitchableWorkspace } from "./workspace-switcher";

/** `workspaces`: the ones the person may open; the links lead into the current one (/w/<slug>/…). */
export function Sidebar({ user, workspaces }: { user: SessionUser; workspaces: SwitchableWorkspace[] }) {
  const slug = user.workspace?.slug ?? "default";
  return (
    <aside className="sticky top-0 flex h-screen w-52 shrink-0 flex-col border-r border-zinc-800 bg-zinc-950 px-3 py-4">
      <Link href={workspacePath(slug, "/runs")} className="mb-4 block px-3">
        <span className="text-base font-semibold tracking-tight text-white">Tether</span>
        <span className="block text-xs text-zinc-400">durable agent runtime</span>
      </Link>
      <WorkspaceSwitcher current={slug} workspaces={workspaces} />
      <nav aria-label="Console" className="flex flex-col gap-0.5">
        {NAV_GROUPS.map(({ group, label }) => {
          const items = NAV_ITEMS.filter((item) => item.group === group && can(user.role, item.scope));
          if (items.length === 0) return null;
          return (
            <div key={group} className="mb-3 flex flex-col gap-0.5">
              {label && <p className="px-3 pb-1 text-xs font-medium uppercase tracking-wide text-zinc-400">{label}</p>}
              {items.map(({ scope: _scope, group: _group, ...item }) =>
                item.href === "/inbox" ? (
                  <div key={item.href} className="relative">
                    <NavLink {...item} href={workspacePath(slug, item.href)} />
                    <InboxCount />
                  </div>
                ) : (
                  <NavLink key={item.href} {...item} href={workspacePath(slug, item.href)} />
                ),
              )}
            </div>
          );
        })}
      </nav>
      <div className="mt-auto space-y-3">
        <UserMenu user={user} />
        <p className="px-3 text-xs text-zinc-400">Times in UTC</p>
      </div>
    </aside>
  );
}
