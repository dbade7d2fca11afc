import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { ConditionEffect, PermissionEffect } from "@/lib/runtime/types";

export const EFFECT_LABEL: Record<PermissionEffect, string> = {
  deny: "Deny",
  allow: "Allow",
  require_approval: "Require approval",
};
/** What a condition does when it holds, as its select offers it. */
export const CONDITION_EFFECT_LABEL: Record<ConditionEffect, string> = { ...EFFECT_LABEL, skip_gate: "Skip the gate" };
const EFFECT_TONE: Record<PermissionEffect, BadgeTone> = { deny: "red", allow: "green", require_approval: "amber" };

/** A rule's effect; dashed when it is inherited from a wildcard rule rather than written for this cell. */
export function EffectBadge({ effect, isInherited = false }: { effect: PermissionEffect; isInherited?: boolean }) {
  return (
    <Badge tone={EFFECT_TONE[effect]} isDashed={isInherited}>
      {EFFECT_LABEL[effect]}
    </Badge>
  );
}

export const stepLabel = (step: string) => (step === "*" ? "all steps" : `step ${step}`);
