import type { ReactNode } from "react";

/** A section of a page named by its own heading (aria-labelledby), so it is a landmark screen readers list. */
export function TitledSection({
  headingId,
  title,
  className,
  children,
}: {
  headingId: string;
  title: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={headingId} className={className}>
      <h2 id={headingId} className="mb-2 text-sm font-semibold text-zinc-900">
        {title}
      </h2>
      {children}
    </section>
  );
}
