import { type Column, DataTable } from "@/components/ui/data-table";
import { compactJson } from "@/components/ui/json-view";
import type { Check, Expectations } from "@/lib/evals/spec";
import { None, Section } from "./case-world";
import { formatBudget } from "./format";

/** Everything a case expects: the final status, checks, tools, approvals, forbidden effects, budgets. */
export function CaseExpectations({ expect, skipFaults }: { expect: Expectations; skipFaults: string[] }) {
  const statuses = Array.isArray(expect.status) ? expect.status : [expect.status];
  const budgets = Object.entries(expect.budgets).filter(
    (entry): entry is [string, number] => typeof entry[1] === "number",
  );
  return (
    <div className="space-y-4 text-sm">
      <Section title="Final status">
        <p>{statuses.join(" or ")}</p>
      </Section>
      <ChecksSection title="Output checks (task completion)" checks={expect.output} />
      <ChecksSection title="State checks (facts, world, ledger)" checks={expect.state} />
      <Section title="Tools">
        <p>Must use: {expect.tools.must.length ? <Mono items={expect.tools.must} /> : "—"}</p>
        <p>Must not use: {expect.tools.mustNot.length ? <Mono items={expect.tools.mustNot} /> : "—"}</p>
      </Section>
      <Section title="Approvals required before acting">
        {expect.approvals.length ? <Mono items={expect.approvals} /> : <None />}
      </Section>
      <Section title="Forbidden effects">
        {expect.never.length ? (
          <Mono items={expect.never.map((e) => (e.action ? `${e.system}.${e.action}` : `${e.system} (any action)`))} />
        ) : (
          <None />
        )}
      </Section>
      <Section title="Budgets">
        {budgets.length ? (
          <ul className="flex flex-wrap gap-4">
            {budgets.map(([name, value]) => (
              <li key={name}>
                {name}: <span className="tabular-nums">{formatBudget(name, value)}</span>
              </li>
            ))}
          </ul>
        ) : (
          <None />
        )}
      </Section>
      {skipFaults.length > 0 && (
        <Section title="Not run under these faults">
          <Mono items={skipFaults} />
        </Section>
      )}
    </div>
  );
}

function Mono({ items }: { items: string[] }) {
  return <span className="font-mono text-xs">{items.join(", ")}</span>;
}

const CHECK_COLUMNS: Column<Check>[] = [
  { header: "Path", className: "font-mono text-xs", cell: (check) => check.path },
  { header: "Operator", className: "font-mono text-xs", cell: (check) => check.op },
  {
    header: "Value",
    className: "font-mono text-xs",
    cell: (check) => (check.value === undefined ? "" : compactJson(check.value, 80)),
  },
  { header: "Why", className: "text-xs text-zinc-600", cell: (check) => check.why ?? "" },
];

function ChecksSection({ title, checks }: { title: string; checks: Check[] }) {
  return (
    <Section title={title}>
      {checks.length === 0 ? <None /> : <DataTable columns={CHECK_COLUMNS} rows={checks} />}
    </Section>
  );
}
