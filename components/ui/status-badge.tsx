import type { RunStatus } from "@/lib/runtime/types";
import { Badge, type BadgeTone } from "./badge";

const STATUS_TONE: Record<RunStatus, BadgeTone> = {
  QUEUED: "gray",
  RUNNING: "blue",
  WAITING_APPROVAL: "amber",
  WAITING_EVENT: "violet",
  SLEEPING: "sky",
  NEEDS_ATTENTION: "orange",
  COMPLETED: "green",
  FAILED: "red",
  CANCELLED: "gray",
};

export function statusLabel(status: string): string {
  const words = status.toLowerCase().replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function StatusBadge({ status }: { status: RunStatus }) {
  return <StatusDotBadge status={status} tone={STATUS_TONE[status] ?? "gray"} />;
}

/** A status in words with a coloured dot, the raw value on hover; for statuses other than a run's too. */
export function StatusDotBadge({ status, tone }: { status: string; tone: BadgeTone }) {
  return (
    <Badge tone={tone} title={status}>
      <span aria-hidden className="size-1.5 rounded-full bg-current" />
      {statusLabel(status)}
    </Badge>
  );
}
