import { Table, Td, Th } from "@/components/ui/table";
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
      <Section title="Output checks (task completion)">
        <Checks checks={expect.output} />
      </Section>
      <Section title="State checks (facts, world, ledger)">
        <Checks checks={expect.state} />
      </Section>
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

function Checks({ checks }: { checks: Check[] }) {
  if (checks.length === 0) return <None />;
  return (
    <Table>
      <thead>
        <tr>
          <Th>Path</Th>
          <Th>Operator</Th>
          <Th>Value</Th>
          <Th>Why</Th>
        </tr>
      </thead>
      <tbody>
        {checks.map((check, i) => (
          <tr key={i}>
            <Td className="font-mono text-xs">{check.path}</Td>
            <Td className="font-mono text-xs">{check.op}</Td>
            <Td className="font-mono text-xs">{check.value === undefined ? "" : compactJson(check.value, 80)}</Td>
            <Td className="text-xs text-zinc-600">{check.why ?? ""}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
