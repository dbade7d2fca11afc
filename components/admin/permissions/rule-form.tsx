"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { InputField, SelectField } from "@/components/ui/labelled-fields";
import { SelectOptions } from "@/components/ui/select-options";
import { putPermissionAction } from "@/lib/actions/permissions";
import { PERMISSION_EFFECTS, type Capability, type PermissionEffect, type PermissionRule } from "@/lib/runtime/types";
import { fieldError, useAdminAction, type ActionOutcome } from "../use-admin-action";
import { fromDraft, toDraft, type ConditionDraft } from "./condition-draft";
import { ConditionsFields } from "./conditions-fields";
import { EFFECT_LABEL, stepLabel } from "./effect-badge";
import { ExpiryChain } from "./expiry-chain";
import { GrantFields } from "./grant-fields";
import { RemoveRuleButton } from "./remove-rule-button";

type RuleFormProps = {
  agent: string;
  tool: string;
  /** null: a new rule (version 0), for one of `stepChoices`. */
  rule: PermissionRule | null;
  stepChoices: Array<{ id: string; title: string }>;
  onOutcome: (outcome: ActionOutcome) => void;
};

/** Edit one rule of a cell. Saving sends the version shown: another admin's change in between is a CONFLICT. */
export function RuleForm({ agent, tool, rule, stepChoices, onOutcome }: RuleFormProps) {
  const [conditions, setConditions] = useState<ConditionDraft[]>(() => (rule?.conditions ?? []).map(toDraft));
  const [onExpire, setOnExpire] = useState(rule?.onExpire ?? "reject");
  const { run, isPending, outcome } = useAdminAction(putPermissionAction, {
    success: (saved) =>
      `Saved ${saved.agent}/${saved.tool} (${stepLabel(saved.step)}): ${EFFECT_LABEL[saved.effect].toLowerCase()}, version ${saved.version}. Runs use it from their next action.`,
    onOutcome,
  });
  const prefix = rule ? `rule-${rule.id}` : "rule-new";
  const error = (path: string) => fieldError(outcome, path);
  // A top-level control: named after its field, which its server error is reported under.
  const control = (name: string, idSuffix = name) => ({ id: `${prefix}-${idSuffix}`, name, error: error(name) });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const ttl = text("ttlSeconds");
    run({
      agent,
      tool,
      step: rule?.step ?? (text("step") || "*"),
      effect: text("effect") as PermissionEffect,
      conditions: conditions.map(fromDraft),
      capabilities: form.getAll("capabilities").map(String) as Capability[],
      freshEvidence: form.get("freshEvidence") === "on",
      approvals: Number(text("approvals") || 1),
      queue: text("queue") || "default",
      ttlSeconds: ttl === "" ? null : Number(ttl),
      onExpire: text("onExpire") || "reject",
      expectedVersion: rule?.version ?? 0,
    });
  }

  const title = rule ? `Rule for ${stepLabel(rule.step)}` : "New rule";
  return (
    <form
      onSubmit={submit}
      aria-label={`${title}: ${agent} × ${tool}`}
      className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4"
      noValidate
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="text-sm font-semibold text-zinc-900">{title}</h3>
        {rule && (
          <p className="text-xs text-zinc-500">
            version {rule.version} · by {rule.updatedBy}
          </p>
        )}
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        {!rule && (
          <SelectField {...control("step")} label="Step" hint="A rule for one plan step wins over the all-steps rule.">
            {stepChoices.map((s) => (
              <option key={s.id} value={s.id}>
                {s.id === "*" ? "All steps" : `${s.title} (${s.id})`}
              </option>
            ))}
          </SelectField>
        )}
        <SelectField {...control("effect")} label="Effect" defaultValue={rule?.effect ?? "require_approval"}>
          <SelectOptions values={PERMISSION_EFFECTS} labelOf={(effect) => EFFECT_LABEL[effect]} />
        </SelectField>
      </div>
      <GrantFields idPrefix={prefix} rule={rule} error={error} />
      <ConditionsFields idPrefix={prefix} conditions={conditions} onChange={setConditions} errorFor={error} />
      <details
        className="rounded border border-zinc-200 p-2"
        open={Boolean(error("queue") || error("onExpire") || error("ttlSeconds") || error("approvals"))}
      >
        <summary className="cursor-pointer text-sm font-medium text-zinc-800">Approval settings</summary>
        <div className="mt-2 grid gap-3 sm:grid-cols-2">
          <InputField
            {...control("queue")}
            label="Queue"
            hint="The inbox queue its packets go to."
            defaultValue={rule?.queue ?? "default"}
          />
          <InputField
            {...control("approvals")}
            label="Approvals needed"
            hint="Distinct reviewers (1–5)."
            type="number"
            min={1}
            max={5}
            defaultValue={rule?.approvals ?? 1}
          />
          <InputField
            {...control("ttlSeconds", "ttl")}
            label="Expires after (seconds)"
            hint="Empty: the packet waits until decided."
            type="number"
            min={1}
            defaultValue={rule?.ttlSeconds ?? ""}
          />
          <InputField
            {...control("onExpire")}
            label="On expiry"
            hint={
              '"reject", "approve" (only when you mean it), "escalate:<queue>", or a chain "escalate:leads@2h,cfo@1d" (then reject)'
            }
            value={onExpire}
            onChange={(e) => setOnExpire(e.target.value)}
          />
          <ExpiryChain text={onExpire} />
        </div>
      </details>
      <div className="flex items-center gap-2">
        <Button type="submit" variant="primary" isBusy={isPending}>
          {rule ? "Save rule" : "Add rule"}
        </Button>
        {rule && <RemoveRuleButton rule={rule} onOutcome={onOutcome} />}
      </div>
    </form>
  );
}
