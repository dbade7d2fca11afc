import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { RunState } from "@/lib/runtime/state";

export function ApprovalsList({ approvals }: { approvals: RunState["approvals"] }) {
  if (approvals.length === 0) return <p className="text-sm text-zinc-500">No approvals.</p>;
  return (
    <Table>
      <thead>
        <tr>
          <Th>Tool</Th>
          <Th>Decision</Th>
          <Th>By</Th>
          <Th>At</Th>
          <Th>Used</Th>
        </tr>
      </thead>
      <tbody>
        {approvals.map((approval) => (
          <tr key={approval.packetId}>
            <Td>
              <span className="font-mono text-xs">{approval.tool}</span>
              <span className="block text-xs text-zinc-500">
                step {approval.step} · {approval.packetId}
              </span>
            </Td>
            <Td>{approval.decision}</Td>
            <Td>{approval.by.join(", ")}</Td>
            <Td>
              <Timestamp value={approval.at} />
            </Td>
            <Td>
              {approval.usedAt ? <Timestamp value={approval.usedAt} /> : <span className="text-zinc-500">not yet</span>}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
