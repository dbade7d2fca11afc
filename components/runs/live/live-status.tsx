"use client";
import { StatusBadge } from "@/components/ui/status-badge";
import { Timestamp } from "@/components/ui/timestamp";
import { useRunLive } from "./run-live";

/** The run's status as last streamed or polled, and whether the page is following it. */
export function LiveStatus() {
  const { head, isLive, isStreaming } = useRunLive();
  return (
    <span className="inline-flex items-center gap-2" data-testid="run-status">
      <StatusBadge status={head.status} />
      {isLive && (
        <span
          className="inline-flex items-center gap-1 text-xs text-emerald-800"
          title={isStreaming ? "streamed as it happens" : "polled"}
          data-live={isStreaming ? "stream" : "poll"}
        >
          <span aria-hidden className="size-2 animate-pulse rounded-full bg-emerald-600" />
          live
        </span>
      )}
    </span>
  );
}

/** When the run last changed, as the last poll saw it (every step moves it; the page is not re-rendered for that). */
export function LiveUpdatedAt() {
  return <Timestamp value={useRunLive().head.updatedAt} />;
}
