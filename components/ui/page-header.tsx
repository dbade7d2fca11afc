import type { ReactNode } from "react";

type PageHeaderProps = { title: ReactNode; description?: ReactNode; actions?: ReactNode };

export function PageHeader({ title, description, actions }: PageHeaderProps) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div className="min-w-0">
        <h1 className="text-xl font-semibold tracking-tight text-zinc-900">{title}</h1>
        {description && <div className="mt-1 text-sm text-zinc-500">{description}</div>}
      </div>
      {actions}
    </div>
  );
}
