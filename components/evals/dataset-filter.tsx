import { ConsoleLink } from "@/components/shell/console-links";
import { FilterChips } from "@/components/shell/filter-form";

/** Chips that filter the eval runs by dataset. */
export function DatasetFilter({ names, active }: { names: string[]; active?: string }) {
  if (names.length < 2 && !active) return null;
  const options = [
    { label: "All datasets", href: "/evals", isActive: !active },
    ...names.map((name) => ({
      label: name,
      href: `/evals?dataset=${encodeURIComponent(name)}`,
      isActive: name === active,
    })),
  ];
  return <FilterChips label="Filter by dataset" chips={options} />;
}

export function EvalRunsPagination({
  dataset,
  isFirstPage,
  nextCursor,
}: {
  dataset?: string;
  isFirstPage: boolean;
  nextCursor: string | null;
}) {
  if (isFirstPage && !nextCursor) return null;
  const href = (cursor?: string) => {
    const params = new URLSearchParams();
    if (dataset) params.set("dataset", dataset);
    if (cursor) params.set("cursor", cursor);
    const query = params.toString();
    return query ? `/evals?${query}` : "/evals";
  };
  const linkClass = "rounded-md border border-zinc-300 bg-white px-3 py-1 text-sm text-zinc-700 hover:border-zinc-500";
  return (
    <nav aria-label="Pagination" className="mt-4 flex justify-between">
      {isFirstPage ? (
        <span />
      ) : (
        <ConsoleLink href={href()} className={linkClass}>
          Newest
        </ConsoleLink>
      )}
      {nextCursor && (
        <ConsoleLink href={href(nextCursor)} className={linkClass}>
          Older eval runs →
        </ConsoleLink>
      )}
    </nav>
  );
}
