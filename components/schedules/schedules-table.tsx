import { Badge } from "@/components/ui/badge";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { listSchedules } from "@/lib/schedules/schedule-view";

type Row = Awaited<ReturnType<typeof listSchedules>>[number];

export function SchedulesTable({ schedules, now }: { schedules: Row[]; now: Date }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Agent</Th>
          <Th>Cron</Th>
          <Th>If still running</Th>
          <Th>Next fires (UTC)</Th>
          <Th>Last fire</Th>
        </tr>
      </thead>
      <tbody>
        {schedules.map((s) => (
          <tr key={s.id} data-testid="schedule-row">
            <Td>
              <span className="font-medium">{s.name}</span>
              {s.paused && (
                <>
                  {" "}
                  <Badge tone="amber">paused</Badge>
                </>
              )}
            </Td>
            <Td className="font-mono text-xs">{s.agent}</Td>
            <Td>
              <code className="text-xs">{s.cron}</code> <span className="text-xs text-zinc-500">{s.timeZone}</span>
            </Td>
            <Td>
              {s.overlap === "skip" ? "skip the tick" : s.overlap === "queue" ? "queue after it" : "cancel it"}
              {s.catchUpSeconds > 0 && (
                <span className="block text-xs text-zinc-500">catch up {s.catchUpSeconds}s</span>
              )}
            </Td>
            <Td>
              {s.upcoming.length === 0 ? (
                <span className="text-zinc-400">—</span>
              ) : (
                <ul>
                  {s.upcoming.map((t, i) => (
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
              )}
            </Td>
            <Td>
              {s.lastFire ? (
                <>
                  <FireOutcome outcome={s.lastFire.outcome} /> <Timestamp value={s.lastFire.tick} />
                </>
              ) : (
                <span className="text-zinc-400">never</span>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

const TONE = { started: "green", pending: "blue", skipped: "gray", missed: "amber", failed: "red" } as const;

export function FireOutcome({ outcome }: { outcome: string }) {
  return <Badge tone={TONE[outcome as keyof typeof TONE] ?? "gray"}>{outcome}</Badge>;
}
