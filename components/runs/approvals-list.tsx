import { type Column, DataTable } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { RunState } from "@/lib/runtime/state";

type Approval = RunState["approvals"][number];

const COLUMNS: Column<Approval>[] = [
  {
    header: "Tool",
    cell: (approval) => (
      <>
        <span className="font-mono text-xs">{approval.tool}</span>
        <span className="block text-xs text-zinc-500">
          step {approval.step} · {approval.packetId}
        </span>
      </>
    ),
  },
  { header: "Decision", cell: (approval) => approval.decision },
  { header: "By", cell: (approval) => approval.by.join(", ") },
  { header: "At", cell: (approval) => <Timestamp value={approval.at} /> },
  {
    header: "Used",
    cell: (approval) =>
      approval.usedAt ? <Timestamp value={approval.usedAt} /> : <span className="text-zinc-500">not yet</span>,
  },
];

export function ApprovalsList({ approvals }: { approvals: RunState["approvals"] }) {
  if (approvals.length === 0) return <p className="text-sm text-zinc-500">No approvals.</p>;
  return <DataTable columns={COLUMNS} rows={approvals} rowKey={(approval) => approval.packetId} />;
}
