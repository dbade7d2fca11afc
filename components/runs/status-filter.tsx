import Link from "next/link";
import { statusLabel } from "@/components/ui/status-badge";
import { RUN_STATUSES, type RunStatus } from "@/lib/runtime/types";

export function StatusFilter({ active }: { active?: RunStatus }) {
  const options: Array<{ label: string; href: string; isActive: boolean }> = [
    { label: "All", href: "/runs", isActive: !active },
    ...RUN_STATUSES.map((status) => ({ label: statusLabel(status), href: `/runs?status=${status}`, isActive: status === active })),
  ];
  return (
    <nav aria-label="Filter by status" className="mb-4 flex flex-wrap gap-1.5">
      {options.map((option) => (
        <Link
          key={option.href}
          href={option.href}
          aria-current={option.isActive ? "page" : undefined}
          className={`rounded-full border px-2.5 py-0.5 text-xs ${
            option.isActive ? "border-zinc-900 bg-zinc-900 text-white" : "border-zinc-300 bg-white text-zinc-600 hover:border-zinc-500"
          }`}
        >
          {option.label}
        </Link>
      ))}
    </nav>
  );
}
