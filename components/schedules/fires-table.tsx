import { ConsoleLink } from "@/components/shell/console-links";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { recentFires } from "@/lib/schedules/schedule-view";
import { FireOutcome } from "./schedules-table";

type Row = Awaited<ReturnType<typeof recentFires>>[number];

export function FiresTable({ fires }: { fires: Row[] }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Tick (UTC)</Th>
          <Th>Schedule</Th>
          <Th>Outcome</Th>
          <Th>Run</Th>
          <Th>Detail</Th>
        </tr>
      </thead>
      <tbody>
        {fires.map((f) => (
          <tr key={f.id} data-testid="fire-row">
            <Td>
              <Timestamp value={f.tick} />
            </Td>
            <Td>{f.schedule}</Td>
            <Td>
              <FireOutcome outcome={f.outcome} />
            </Td>
            <Td>
              {f.runId ? (
                <ConsoleLink className="font-mono text-xs text-blue-700 hover:underline" href={`/runs/${f.runId}`}>
                  {f.runId}
                </ConsoleLink>
              ) : (
                <span className="text-zinc-400">—</span>
              )}
            </Td>
            <Td className="text-xs text-zinc-600">{f.detail}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
