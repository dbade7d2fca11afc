import Link from "next/link";
import { NAV_ITEMS } from "./nav-items";
import { NavLink } from "./nav-link";

export function Sidebar() {
  return (
    <aside className="sticky top-0 flex h-screen w-52 shrink-0 flex-col border-r border-zinc-800 bg-zinc-950 px-3 py-4">
      <Link href="/runs" className="mb-6 block px-3">
        <span className="text-base font-semibold tracking-tight text-white">Tether</span>
        <span className="block text-xs text-zinc-500">durable agent runtime</span>
      </Link>
      <nav aria-label="Console" className="flex flex-col gap-0.5">
        {NAV_ITEMS.map((item) => (
          <NavLink key={item.href} {...item} />
        ))}
      </nav>
      <p className="mt-auto px-3 text-xs text-zinc-600">Times in UTC</p>
    </aside>
  );
}
