"use client";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/field";
import { SelectOptions } from "@/components/ui/select-options";
import { describePredicate, OP_SYMBOL } from "@/lib/runtime/permissions";
import { CONDITION_EFFECTS, type PermissionCondition } from "@/lib/runtime/types";
import { fromDraft, type ConditionDraft } from "./condition-draft";
import { CONDITION_EFFECT_LABEL } from "./effect-badge";

const OPERATORS = Object.keys(OP_SYMBOL) as Array<PermissionCondition["op"]>;

/** A text input of a condition's row, its small label around it; the row's error marks it invalid. */
function InlineInput({
  label,
  onChange,
  ...input
}: {
  id: string;
  label: string;
  value: string;
  placeholder: string;
  error?: string | null;
  onChange: (value: string) => void;
}) {
  return (
    <label className="min-w-36 flex-1 text-xs text-zinc-700">
      {label}
      <Input {...input} aria-invalid={input.error ? true : undefined} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/** A select of a condition's row, its small label around it; `onChange` gets one of `values`, shown as `labels` says. */
function InlineSelect<T extends string>({
  id,
  label,
  className,
  value,
  values,
  labels,
  onChange,
}: {
  id: string;
  label: string;
  className: string;
  value: T;
  values: readonly T[];
  labels: Record<T, string>;
  onChange: (value: T) => void;
}) {
  return (
    <label className={`${className} text-xs text-zinc-700`}>
      {label}
      <Select id={id} value={value} onChange={(e) => onChange(e.target.value as T)}>
        <SelectOptions values={values} labelOf={(v) => labels[v]} />
      </Select>
    </label>
  );
}

type ConditionsFieldsProps = {
  idPrefix: string;
  conditions: ConditionDraft[];
  onChange: (next: ConditionDraft[]) => void;
  errorFor: (path: string) => string | null;
};

/** Conditions on the tool's arguments: when one holds, its (more restrictive) effect applies — or, "skip the gate", the call needs no person. */
export function ConditionsFields({ idPrefix, conditions, onChange, errorFor }: ConditionsFieldsProps) {
  const update = (key: number, patch: Partial<ConditionDraft>) =>
    onChange(conditions.map((c) => (c.key === key ? { ...c, ...patch } : c)));
  const add = (draft: Pick<ConditionDraft, "op" | "effect">) =>
    onChange([...conditions, { key: Math.max(0, ...conditions.map((c) => c.key)) + 1, path: "", value: "", ...draft }]);
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-zinc-800">Conditions</legend>
      <p className="text-xs text-zinc-500">
        On the tool&apos;s arguments, e.g. amountCents &gt; 10000 → require approval. A condition only makes the rule
        stricter. A value may name the run: <code>$input.orderId</code> (its input), or{" "}
        <code>{'{"$fact":"order","path":"customerEmail","tool":"orders.get"}'}</code> (what a read returned); e.g.
        orderId ≠ <code>$input.orderId</code> → deny. A reference that names nothing makes its condition hold.
      </p>
      <p className="text-xs text-zinc-500">
        On a rule that requires approval, <strong>Skip the gate</strong> lets a call through without asking anyone, e.g.
        amount ≤ 20. Every skip condition must hold, and for sure: a missing argument or a reference that names nothing
        keeps the gate; a stricter condition or weak evidence still wins. The run&apos;s trace names the conditions that
        let a call through.
      </p>
      {conditions.length === 0 && <p className="text-xs text-zinc-500">No conditions.</p>}
      {conditions.map((c, index) => {
        const id = `${idPrefix}-cond-${c.key}`;
        // A control of the row: its id, the draft's value and its edits, by the draft's key.
        const bind = <K extends "path" | "op" | "value" | "effect">(key: K) => ({
          id: `${id}-${key}`,
          value: c[key],
          onChange: (value: ConditionDraft[K]) => update(c.key, { [key]: value }),
        });
        const error =
          errorFor(`conditions.${index}.path`) ??
          errorFor(`conditions.${index}.value`) ??
          errorFor(`conditions.${index}.effect`) ??
          errorFor(`conditions.${index}`);
        return (
          <div
            key={c.key}
            role="group"
            aria-label={`Condition ${index + 1}`}
            className="rounded border border-zinc-200 p-2"
          >
            <div className="flex flex-wrap items-end gap-2">
              <InlineInput {...bind("path")} label="Argument path" placeholder="amountCents" error={error} />
              <InlineSelect {...bind("op")} label="Operator" className="w-20" values={OPERATORS} labels={OP_SYMBOL} />
              <InlineInput {...bind("value")} label="Value" placeholder="10000" />
              <InlineSelect
                {...bind("effect")}
                label="Then"
                className="w-44"
                values={CONDITION_EFFECTS}
                labels={CONDITION_EFFECT_LABEL}
              />
              <Button
                size="sm"
                variant="ghost"
                onClick={() => onChange(conditions.filter((x) => x.key !== c.key))}
                aria-label={`Remove condition ${index + 1}`}
              >
                Remove
              </Button>
            </div>
            {c.path.trim() && c.value.trim() && (
              <p className="mt-1 text-xs text-zinc-600">
                {CONDITION_EFFECT_LABEL[c.effect]} when {describePredicate(fromDraft(c))}
              </p>
            )}
            {error && <p className="mt-1 text-xs text-red-700">{error}</p>}
          </div>
        );
      })}
      <div className="flex flex-wrap gap-2">
        <Button size="sm" onClick={() => add({ op: "gt", effect: "require_approval" })}>
          Add condition
        </Button>
        <Button size="sm" onClick={() => add({ op: "lte", effect: "skip_gate" })}>
          Skip the gate when…
        </Button>
      </div>
    </fieldset>
  );
}
