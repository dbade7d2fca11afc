import { ConsoleLink } from "@/components/shell/console-links";

/** Pills that filter the eval runs by dataset (links, so the filter is in the URL and works without JS). */
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
  return (
    <nav aria-label="Filter by dataset" className="mb-4 flex flex-wrap gap-1.5">
      {options.map((option) => (
        <ConsoleLink
          key={option.href}
          href={option.href}
          aria-current={option.isActive ? "page" : undefined}
          className={`rounded-full border px-2.5 py-0.5 text-xs ${option.isActive ? "border-zinc-900 bg-zinc-900 text-white" : "border-zinc-300 bg-white text-zinc-600 hover:border-zinc-500"}`}
        >
          {option.label}
        </ConsoleLink>
      ))}
    </nav>
  );
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
