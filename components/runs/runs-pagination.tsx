import Link from "next/link";
import type { RunStatus } from "@/lib/runtime/types";

type RunsPaginationProps = { status?: RunStatus; isFirstPage: boolean; nextCursor: string | null };

export function RunsPagination({ status, isFirstPage, nextCursor }: RunsPaginationProps) {
  if (isFirstPage && !nextCursor) return null;
  const href = (cursor?: string) => {
    const params = new URLSearchParams();
    if (status) params.set("status", status);
    if (cursor) params.set("cursor", cursor);
    const query = params.toString();
    return query ? `/runs?${query}` : "/runs";
  };
  const linkClass = "rounded-md border border-zinc-300 bg-white px-3 py-1 text-sm text-zinc-700 hover:border-zinc-500";
  return (
    <nav aria-label="Pagination" className="mt-4 flex justify-between">
      {isFirstPage ? <span /> : <Link href={href()} className={linkClass}>Newest</Link>}
      {nextCursor && (
        <Link href={href(nextCursor)} className={linkClass}>
          Next page →
        </Link>
      )}
    </nav>
  );
}
