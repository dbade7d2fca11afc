import { ConsoleLink } from "@/components/shell/console-links";
import { Badge } from "@/components/ui/badge";
import { Table, Td, Th } from "@/components/ui/table";
import type { DatasetCase } from "@/lib/evals/queries";
import { summarizeExpectations } from "./format";

export function CasesTable({ datasetName, cases }: { datasetName: string; cases: DatasetCase[] }) {
  return (
    <Table>
      <caption className="sr-only">The dataset&apos;s cases, in order</caption>
      <thead>
        <tr>
          <Th>Case</Th>
          <Th>Agent</Th>
          <Th>Tags</Th>
          <Th>Expectations</Th>
          <Th className="text-right">Reviewer answers</Th>
        </tr>
      </thead>
      <tbody>
        {cases.map((c) => (
          <tr key={c.caseId} className="hover:bg-zinc-50">
            <Td>
              <ConsoleLink
                href={`/evals/datasets/${encodeURIComponent(datasetName)}/cases/${encodeURIComponent(c.caseId)}`}
                className="font-medium text-blue-700 hover:underline"
              >
                {c.title}
              </ConsoleLink>
              <div className="font-mono text-xs text-zinc-500">{c.caseId}</div>
            </Td>
            <Td className="text-xs">{c.agent}</Td>
            <Td>
              <span className="flex flex-wrap gap-1">
                {c.tags.map((tag) => (
                  <Badge key={tag}>{tag}</Badge>
                ))}
              </span>
            </Td>
            <Td className="text-xs text-zinc-700">
              <ul className="space-y-0.5">
                {summarizeExpectations(c.spec.expect).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </Td>
            <Td className="text-right tabular-nums">{c.spec.reviewer.length}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
