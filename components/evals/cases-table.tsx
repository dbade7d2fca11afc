import { ConsoleLink } from "@/components/shell/console-links";
import { BadgeList } from "@/components/ui/badge-list";
import { type Column, DataTable } from "@/components/ui/data-table";
import type { DatasetCase } from "@/lib/queries/eval-records";
import { summarizeExpectations } from "./format";

function caseColumns(datasetName: string): Column<DatasetCase>[] {
  return [
    {
      header: "Case",
      cell: (c) => (
        <>
          <ConsoleLink
            href={`/evals/datasets/${encodeURIComponent(datasetName)}/cases/${encodeURIComponent(c.caseId)}`}
            className="font-medium text-blue-700 hover:underline"
          >
            {c.title}
          </ConsoleLink>
          <div className="font-mono text-xs text-zinc-500">{c.caseId}</div>
        </>
      ),
    },
    { header: "Agent", className: "text-xs", cell: (c) => c.agent },
    { header: "Tags", cell: (c) => <BadgeList labels={c.tags} /> },
    {
      header: "Expectations",
      className: "text-xs text-zinc-700",
      cell: (c) => (
        <ul className="space-y-0.5">
          {summarizeExpectations(c.spec.expect).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ),
    },
    { header: "Reviewer answers", align: "right", className: "tabular-nums", cell: (c) => c.spec.reviewer.length },
  ];
}

export function CasesTable({ datasetName, cases }: { datasetName: string; cases: DatasetCase[] }) {
  return (
    <DataTable
      caption="The dataset's cases, in order"
      columns={caseColumns(datasetName)}
      rows={cases}
      rowKey={(c) => c.caseId}
      rowClassName="hover:bg-zinc-50"
    />
  );
}
