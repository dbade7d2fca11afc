// Loading states: a skeleton that keeps the layout from jumping, and rows for tables and lists.

export function Skeleton({ className = "" }: { className?: string }) {
  return <div aria-hidden className={`animate-pulse rounded bg-zinc-200 ${className}`} />;
}

export function LoadingRows({ rows = 6, label = "Loading" }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-label={label} className="space-y-2 rounded-lg border border-zinc-200 bg-white p-4">
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} className="h-5 w-full" />
      ))}
      <span className="sr-only">{label}…</span>
    </div>
  );
}
