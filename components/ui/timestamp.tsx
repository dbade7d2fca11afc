import { formatAge } from "@/lib/runtime/expiry";

// Times render on the server in UTC (stated in the sidebar), so every viewer reads the same value.

function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function formatUtc(value: Date | string): string {
  return toDate(value).toISOString().slice(0, 19).replace("T", " ");
}

export function formatRelative(value: Date | string, now: Date): string {
  const ms = toDate(value).getTime() - now.getTime();
  const age = formatAge(Math.abs(ms));
  return ms >= 0 ? `in ${age}` : `${age} ago`;
}

type TimestampProps = { value: Date | string | null | undefined; relativeTo?: Date; className?: string };

/** Absolute UTC time, or relative to `relativeTo` (with the absolute time on hover). */
export function Timestamp({ value, relativeTo, className = "" }: TimestampProps) {
  if (!value) return <span className="text-zinc-400">—</span>;
  const iso = toDate(value).toISOString();
  return (
    <time dateTime={iso} title={`${iso} (UTC)`} className={`whitespace-nowrap tabular-nums ${className}`}>
      {relativeTo ? formatRelative(value, relativeTo) : formatUtc(value)}
    </time>
  );
}
