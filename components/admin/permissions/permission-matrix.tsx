import { ConsoleLink } from "@/components/shell/console-links";
import { Table, Td, Th } from "@/components/ui/table";
import { cellKey, type MatrixCell, type PermissionMatrix } from "@/lib/queries/permissions";
import { describePredicate, describeRule, isGateSkip } from "@/lib/runtime/permissions";
import { CAPABILITIES } from "@/lib/runtime/types";
import { EFFECT_LABEL, EffectBadge } from "./effect-badge";

type Selection = { agent: string; tool: string } | null;

/** Tools × agents. Each cell links to its editor; its label says what applies there, for screen readers too. */
export function PermissionMatrixTable({ matrix, selected }: { matrix: PermissionMatrix; selected: Selection }) {
  return (
    <Table>
      <caption className="sr-only">Permission matrix: one row per tool, one column per agent</caption>
      <thead>
        <tr>
          <Th>Tool</Th>
          {matrix.agents.map((agent) => (
            <Th key={agent.slug}>
              <span className="font-mono">{agent.slug === "*" ? "* (any agent)" : agent.slug}</span>
            </Th>
          ))}
        </tr>
      </thead>
      <tbody>
        {matrix.tools.map((tool) => (
          <tr key={tool}>
            <th
              scope="row"
              className="border-b border-zinc-100 px-3 py-2 text-left align-top font-mono text-xs font-medium text-zinc-800"
            >
              {tool === "*" ? "* (any tool)" : tool}
            </th>
            {matrix.agents.map((agent) => {
              const cell = matrix.cells[cellKey(agent.slug, tool)];
              const isSelected = selected?.agent === agent.slug && selected.tool === tool;
              return (
                <Td key={agent.slug} className={isSelected ? "bg-blue-50" : undefined}>
                  <CellLink cell={cell} isSelected={isSelected} />
                </Td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function summary(cell: MatrixCell): string {
  const base = cell.rules.find((r) => r.step === "*");
  const steps = cell.rules.filter((r) => r.step !== "*").length;
  const stepText = steps ? `, ${steps} step rule${steps > 1 ? "s" : ""}` : "";
  // In the order the cell shows them, so the link's name contains its visible text (WCAG 2.5.3).
  if (base)
    return `${EFFECT_LABEL[base.effect]}${onlyText(base)}${base.conditions.length ? `, ${base.conditions.length} condition${base.conditions.length > 1 ? "s" : ""}` : ""}${skipText(base) ? `, ${skipText(base)}` : ""}${stepText}`;
  if (cell.inherited)
    return `inherits ${EFFECT_LABEL[cell.inherited.effect].toLowerCase()} from ${describeRule(cell.inherited)}${stepText}`;
  return `no rule: denied${stepText}`;
}

/** ", only read, execute" for a rule that grants fewer than every capability. */
function onlyText(rule: MatrixCell["rules"][number]): string {
  return rule.capabilities.length < CAPABILITIES.length ? `, only ${rule.capabilities.join(", ")}` : "";
}

/** "skip the gate when amount ≤ 20 and currency = "USD"": the rule's auto-approval in words; "" when it has none. */
function skipText(rule: MatrixCell["rules"][number]): string {
  const skips = rule.conditions.filter((c) => isGateSkip(rule, c));
  return skips.length ? `skip the gate when ${skips.map((c) => describePredicate(c)).join(" and ")}` : "";
}

function CellLink({ cell, isSelected }: { cell: MatrixCell; isSelected: boolean }) {
  const base = cell.rules.find((r) => r.step === "*");
  const steps = cell.rules.filter((r) => r.step !== "*");
  const href = `/admin/permissions?agent=${encodeURIComponent(cell.agent)}&tool=${encodeURIComponent(cell.tool)}#cell-editor`;
  return (
    <ConsoleLink
      href={href}
      aria-label={`${cell.agent} × ${cell.tool}: ${summary(cell)}`}
      aria-current={isSelected ? "true" : undefined}
      className="flex flex-col items-start gap-0.5 rounded p-1 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600"
    >
      {base ? (
        <EffectBadge effect={base.effect} />
      ) : cell.inherited ? (
        <EffectBadge effect={cell.inherited.effect} isInherited />
      ) : (
        <span className="text-xs text-zinc-500">—</span>
      )}
      {/* the spaces keep the visible text in words, as in the link's name */}
      {base && onlyText(base) && <span className="text-xs text-zinc-600"> {onlyText(base).slice(2)}</span>}
      {base && base.conditions.length > 0 && (
        <span className="text-xs text-zinc-600">
          {" "}
          +{base.conditions.length} condition{base.conditions.length > 1 ? "s" : ""}
        </span>
      )}
      {base && skipText(base) && <span className="text-xs text-emerald-800"> {skipText(base)}</span>}
      {steps.length > 0 && (
        <span className="text-xs text-zinc-600">
          {" "}
          {steps.length} step rule{steps.length > 1 ? "s" : ""}
        </span>
      )}
    </ConsoleLink>
  );
}
