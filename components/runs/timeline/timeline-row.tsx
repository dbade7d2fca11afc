import { Badge, type BadgeTone } from "@/components/ui/badge";
import { JsonView } from "@/components/ui/json-view";
import type { TimelineEvent } from "@/lib/queries/run-events";
import { formatDuration, kindOf, summarizeEvent, type EventKind, type TimelineRow as Row } from "./trace-model";

const KIND_TONE: Record<EventKind, BadgeTone> = {
  model: "sky",
  tool: "blue",
  permission: "gray",
  gate: "amber",
  decision: "violet",
  state: "green",
};

const time = (iso: string) => iso.slice(11, 23);

function ToolFacts({ event }: { event: TimelineEvent }) {
  const d = event.data;
  const chips = [
    d.attempt !== undefined && `attempt ${String(d.attempt)}`,
    d.latencyMs !== undefined && `${String(d.latencyMs)} ms`,
    typeof d.errorClass === "string" && `error: ${d.errorClass}`,
    typeof d.idempotencyKey === "string" && `key ${d.idempotencyKey}`,
  ].filter((c): c is string => Boolean(c));
  if (chips.length === 0) return null;
  return (
    <span className="flex flex-wrap gap-1">
      {chips.map((chip) => (
        <span
          key={chip}
          className={`rounded px-1 font-mono text-[11px] ${chip.startsWith("error") ? "bg-red-50 text-red-800" : "bg-zinc-100 text-zinc-700"}`}
        >
          {chip}
        </span>
      ))}
    </span>
  );
}

function EventRow({ event }: { event: TimelineEvent }) {
  const kind = kindOf(event.type);
  const isDecision = kind === "decision";
  return (
    <div
      className={`grid grid-cols-[3.5rem_6.5rem_minmax(0,1fr)] gap-x-3 border-b border-zinc-100 px-3 py-1.5 text-sm ${isDecision ? "bg-violet-50" : ""}`}
    >
      <span className="text-right font-mono text-xs text-zinc-500 tabular-nums">#{event.seq}</span>
      <time dateTime={event.at} title={`${event.at} (UTC)`} className="font-mono text-xs text-zinc-600 tabular-nums">
        {time(event.at)}
      </time>
      <div className="min-w-0 space-y-0.5">
        <div className="flex flex-wrap items-center gap-1.5">
          <Badge tone={KIND_TONE[kind]}>{isDecision ? "Human decision" : kind}</Badge>
          <span className="font-mono text-xs text-zinc-900">{event.type}</span>
          <span className="min-w-0 text-xs break-words text-zinc-700">{summarizeEvent(event)}</span>
        </div>
        {kind === "tool" && <ToolFacts event={event} />}
        <JsonView value={event.data} previewLength={140} />
      </div>
    </div>
  );
}

export function TimelineRowView({ row }: { row: Row }) {
  if (row.kind === "step") {
    return (
      <div className="border-b border-zinc-200 bg-zinc-50 px-3 py-1.5 text-xs font-semibold tracking-wide text-zinc-700 uppercase">
        {row.step < 0 ? "Run" : `Step ${row.step}`}{" "}
        <span className="font-normal normal-case text-zinc-500">
          · {row.count} event{row.count === 1 ? "" : "s"} · {time(row.startedAt)}
        </span>
      </div>
    );
  }
  if (row.kind === "wait") {
    return (
      <div className="border-b border-dashed border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
        <span aria-hidden>⏸ </span>Waited {formatDuration(row.waitedMs)} — {row.reason}
      </div>
    );
  }
  return <EventRow event={row.event} />;
}
