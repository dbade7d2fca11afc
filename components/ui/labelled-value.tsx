import type { ReactNode } from "react";

/** One term of a <dl>: a small label over its value; `className` sets the value's size and weight. */
export function LabelledValue({
  label,
  className = "text-sm text-zinc-800",
  children,
}: {
  label: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-500">{label}</dt>
      <dd className={className}>{children}</dd>
    </div>
  );
}
