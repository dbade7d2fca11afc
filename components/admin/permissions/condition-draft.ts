import { isValueRef } from "@/lib/runtime/permissions";
import type { PermissionCondition } from "@/lib/runtime/types";

/** A condition as the form edits it: the value as text (JSON when it parses, else a string). */
export type ConditionDraft = {
  key: number;
  path: string;
  op: PermissionCondition["op"];
  value: string;
  effect: PermissionCondition["effect"];
};

/** A reference to the run's input, as typed: "$input.orderId". */
const INPUT_REF = /^\$input\.(\S+)$/;

export function toDraft(condition: PermissionCondition, key: number): ConditionDraft {
  const { value } = condition;
  const text =
    isValueRef(value) && "$input" in value
      ? `$input.${value.$input}`
      : typeof value === "string"
        ? value
        : JSON.stringify(value);
  return { key, path: condition.path, op: condition.op, value: text, effect: condition.effect };
}

export function fromDraft({ path, op, value, effect }: ConditionDraft): PermissionCondition {
  const ref = INPUT_REF.exec(value.trim());
  if (ref) return { path: path.trim(), op, value: { $input: ref[1] }, effect };
  let parsed: unknown = value;
  try {
    parsed = JSON.parse(value);
  } catch {
    // plain text: compared as a string
  }
  return { path: path.trim(), op, value: parsed, effect };
}
