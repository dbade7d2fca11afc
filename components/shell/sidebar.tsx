import Link from "next/link";
import { can, type SessionUser } from "@/lib/auth/rbac";
import { NAV_ITEMS } from "./nav-items";
import { NavLink } from "./nav-link";
import { UserMenu } from "./user-menu";

export function Sidebar({ user }: { user: SessionUser }) {
  return (
    <aside className="sticky top-0 flex h-screen w-52 shrink-0 flex-col border-r border-zinc-800 bg-zinc-950 px-3 py-4">
      <Link href="/runs" className="mb-6 block px-3">
        <span className="text-base font-semibold tracking-tight text-white">Tether</span>
        <span className="block text-xs text-zinc-500">durable agent runtime</span>
      </Link>
      <nav aria-label="Console" className="flex flex-col gap-0.5">
        {NAV_ITEMS.filter((item) => can(user.role, item.scope)).map(({ scope: _scope, ...item }) => (
          <NavLink key={item.href} {...item} />
        ))}
      </nav>
      <div className="mt-auto space-y-3">
        <UserMenu user={user} />
        <p className="px-3 text-xs text-zinc-600">Times in UTC</p>
      </div>
    </aside>
  );
}
