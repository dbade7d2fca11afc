"use client";
import { useTickingNow } from "@/components/ui/use-ticking-now";
import { describeCountdown, describeOnExpire } from "@/lib/inbox/countdown";

type ExpiryCountdownProps = { expiresAt: string | null; onExpire: string; now: Date };

/**
 * A packet's deadline, live: "expires in 1 h 12 min · then it escalates to oncall", then "expired". The
 * words are the label of a <time> holding the deadline; its width is reserved for the longest words ("expires in 59 min 59 s") so a tick never moves the row.
 * Not a live region: a screen reader reads it when it reaches it, not every second.
 */
export function ExpiryCountdown({ expiresAt, onExpire, now: serverNow }: ExpiryCountdownProps) {
  const now = useTickingNow(serverNow);
  if (!expiresAt) return <span className="text-zinc-500">never</span>;
  const iso = new Date(expiresAt).toISOString();
  const text = describeCountdown(expiresAt, now);
  const isExpired = text === "expired";
  return (
    <span className="inline-flex flex-wrap gap-x-1">
      <time
        dateTime={iso}
        title={`${iso} (UTC)`}
        className={`inline-block min-w-[22ch] whitespace-nowrap tabular-nums ${isExpired ? "font-medium text-red-800" : "text-zinc-900"}`}
      >
        {text}
      </time>
      <span className="text-zinc-600">{describeOnExpire(onExpire)}</span>
    </span>
  );
}
