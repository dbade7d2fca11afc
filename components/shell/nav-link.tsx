"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export function NavLink({ href, label, description }: { href: string; label: string; description: string }) {
  const pathname = usePathname();
  const isActive = pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      title={description}
      aria-current={isActive ? "page" : undefined}
      className={`block rounded-md px-3 py-1.5 text-sm transition-colors ${
        isActive ? "bg-zinc-800 font-medium text-white" : "text-zinc-400 hover:bg-zinc-900 hover:text-zinc-100"
      }`}
    >
      {label}
    </Link>
  );
}
