import { Badge, type BadgeTone } from "@/components/ui/badge";
import { FACT_AUTHORITY, type FactKind } from "@/lib/runtime/state";

// Each kind of fact carries a different authority (docs/design.md); each looks different.
const KIND_STYLE: Record<FactKind, { tone: BadgeTone; icon: string; isDashed: boolean }> = {
  decision: { tone: "violet", icon: "◆", isDashed: false }, // a person decided
  receipt: { tone: "green", icon: "✓", isDashed: false }, // an external system confirmed
  observation: { tone: "sky", icon: "◉", isDashed: false }, // a read tool returned it
  inference: { tone: "amber", icon: "?", isDashed: true }, // the model believes it
};

export function FactKindBadge({ kind }: { kind: FactKind }) {
  const style = KIND_STYLE[kind];
  return (
    <Badge tone={style.tone} isDashed={style.isDashed} title={FACT_AUTHORITY[kind].authority}>
      <span aria-hidden>{style.icon}</span>
      {kind}
    </Badge>
  );
}
