import type { ReactNode } from "react";

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-zinc-300 bg-white px-6 py-10 text-center">
      <p className="text-sm font-medium text-zinc-800">{title}</p>
      {children && <div className="mx-auto mt-1 max-w-md text-sm text-zinc-500">{children}</div>}
    </div>
  );
}
