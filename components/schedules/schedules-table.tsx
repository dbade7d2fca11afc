import { Badge } from "@/components/ui/badge";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { Timestamp } from "@/components/ui/timestamp";
import type { listSchedules } from "@/lib/queries/schedules";

type Row = Awaited<ReturnType<typeof listSchedules>>[number];

function scheduleColumns(now: Date): Column<Row>[] {
  return [
    {
      header: "Name",
      cell: (s) => (
        <>
          <span className="font-medium">{s.name}</span>
          {s.paused && (
            <>
              {" "}
              <Badge tone="amber">paused</Badge>
            </>
          )}
        </>
      ),
    },
    { header: "Agent", className: "font-mono text-xs", cell: (s) => s.agent },
    {
      header: "Cron",
      cell: (s) => (
        <>
          <code className="text-xs">{s.cron}</code> <span className="text-xs text-zinc-500">{s.timeZone}</span>
        </>
      ),
    },
    {
      header: "If still running",
      cell: (s) => (
        <>
          {s.overlap === "skip" ? "skip the tick" : s.overlap === "queue" ? "queue after it" : "cancel it"}
          {s.catchUpSeconds > 0 && <span className="block text-xs text-zinc-500">catch up {s.catchUpSeconds}s</span>}
        </>
      ),
    },
    { header: "Next fires (UTC)", cell: (s) => <UpcomingTicks ticks={s.upcoming} now={now} /> },
    {
      header: "Last fire",
      cell: (s) =>
        s.lastFire ? (
          <>
            <FireOutcome outcome={s.lastFire.outcome} /> <Timestamp value={s.lastFire.tick} />
          </>
        ) : (
          <span className="text-zinc-400">never</span>
        ),
    },
  ];
}

/** The workspace's schedules, or how to create the first one. */
export function SchedulesTable({ schedules, now }: { schedules: Row[]; now: Date }) {
  if (schedules.length === 0) {
    return (
      <EmptyState title="No schedules yet">
        Create one with the API (POST /api/schedules) or the CLI: tether schedule create --name … --agent … --cron
        &apos;0 9 * * *&apos;.
      </EmptyState>
    );
  }
  return <DataTable columns={scheduleColumns(now)} rows={schedules} rowKey={(s) => s.id} rowTestId="schedule-row" />;
}

/** The next ticks, the first also relative to now. */
function UpcomingTicks({ ticks, now }: { ticks: Row["upcoming"]; now: Date }) {
  if (ticks.length === 0) return <span className="text-zinc-400">—</span>;
  return (
    <ul>
      {ticks.map((t, i) => (
        <li key={t}>
          <Timestamp value={t} />
          {i === 0 && (
            <span className="ml-1 text-xs text-zinc-500">
              (<Timestamp value={t} relativeTo={now} />)
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

const TONE = { started: "green", pending: "blue", skipped: "gray", missed: "amber", failed: "red" } as const;

export function FireOutcome({ outcome }: { outcome: string }) {
  return <Badge tone={TONE[outcome as keyof typeof TONE] ?? "gray"}>{outcome}</Badge>;
}
