import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { ImpactLevel } from "@/lib/runtime/impact";

const TONE: Record<ImpactLevel, BadgeTone> = { high: "red", medium: "amber", low: "gray" };

export function ImpactBadge({ level, reason }: { level: ImpactLevel; reason?: string }) {
  return (
    <Badge tone={TONE[level]} title={reason}>
      {level} impact
    </Badge>
  );
}
