"use client";
import { useState } from "react";
import { describeRule } from "@/lib/runtime/permissions";
import type { PermissionRule } from "@/lib/runtime/types";
import { ActionMessage } from "../action-message";
import type { ActionOutcome } from "../use-admin-action";
import { EFFECT_LABEL } from "./effect-badge";
import { RuleForm } from "./rule-form";

type CellEditorProps = {
  agent: string;
  tool: string;
  rules: PermissionRule[];
  inherited: PermissionRule | null;
  steps: Array<{ id: string; title: string }>;
};

/**
 * The rules of one (agent, tool) cell, each editable, and a form for a new one. The outcome message lives
 * here, not in the forms: a saved rule's form is re-created with its new version.
 */
export function CellEditor({ agent, tool, rules, inherited, steps }: CellEditorProps) {
  const [notice, setNotice] = useState<ActionOutcome | null>(null);
  const taken = new Set(rules.map((r) => r.step));
  const stepChoices = [{ id: "*", title: "All steps" }, ...steps].filter((s) => !taken.has(s.id));
  const hasBase = taken.has("*");
  return (
    <div className="space-y-3">
      <div aria-live="polite">
        <ActionMessage outcome={notice} />
      </div>
      {!hasBase && (
        <p className="text-sm text-zinc-600">
          {inherited
            ? `No all-steps rule of its own: ${describeRule(inherited)} applies (${EFFECT_LABEL[inherited.effect].toLowerCase()}).`
            : "No rule grants this tool to this agent: it is denied."}
        </p>
      )}
      {rules.map((rule) => (
        <RuleForm
          key={`${rule.id}:${rule.version}`}
          agent={agent}
          tool={tool}
          rule={rule}
          stepChoices={[]}
          onOutcome={setNotice}
        />
      ))}
      {stepChoices.length > 0 && (
        <RuleForm
          key={`new:${rules.map((r) => r.id).join(",")}`}
          agent={agent}
          tool={tool}
          rule={null}
          stepChoices={stepChoices}
          onOutcome={setNotice}
        />
      )}
    </div>
  );
}
