import type { Capability, EffectSemantics, PacketKind, ToolDefinition } from "./types";

// How much harm a wrong "yes" can do, from the tool's own declaration (capability + effect semantics)
// and the kind of world it touches. The inbox sorts by it, and a HIGH-impact approval — also by
// keyboard or in bulk — needs a confirmation.
//
// high:   the effect cannot be safely repeated or undone (`unsafe`), or it moves money
//         (payments.*, refunds, charges, transfers, payouts), or it talks to the outside world
//         (mail.*, send/email/sms/message/notify/post/publish), or its outcome is unknown
//         (an UNKNOWN_OUTCOME packet: the action may already have happened);
// medium: any other `execute` (changes the world, but is idempotent or reconcilable);
// low:    read, draft and approve capabilities.
// A tool the registry no longer knows counts as high: nothing vouches for it.

export type ImpactLevel = "high" | "medium" | "low";
export type ToolTraits = { capability: Capability; semantics: EffectSemantics } | null;

const MONEY = /(^payments?\.|refund|charge|payout|transfer|invoice|payment)/i;
const EXTERNAL = /(^mail\.|^email\.|^sms\.|^slack\.|\.send$|send|email|sms|notify|publish|post_message|message)/i;

export function impactLevel(tool: string, traits: ToolTraits, kind: PacketKind = "APPROVAL"): ImpactLevel {
  if (!traits || kind === "UNKNOWN_OUTCOME") return "high";
  if (traits.semantics === "unsafe") return "high";
  if (traits.capability === "execute" && (MONEY.test(tool) || EXTERNAL.test(tool))) return "high";
  if (traits.capability === "execute") return "medium";
  return "low";
}

export const IMPACT_RANK: Record<ImpactLevel, number> = { high: 3, medium: 2, low: 1 };

/** A new packet's impact as the number the inbox sorts on (DecisionPacket.impactRank). */
export const impactRankOf = (packet: { tool: string; traits: ToolTraits; kind: PacketKind }): number =>
  IMPACT_RANK[impactLevel(packet.tool, packet.traits, packet.kind)];

/** Why an impact is high, in a few words for the badge's title. */
export function impactReason(tool: string, traits: ToolTraits, kind: PacketKind = "APPROVAL"): string {
  if (!traits) return "unknown tool";
  if (kind === "UNKNOWN_OUTCOME") return "the action may already have happened";
  if (traits.semantics === "unsafe") return "unsafe: cannot be safely repeated";
  if (traits.capability === "execute" && MONEY.test(tool)) return "moves money";
  if (traits.capability === "execute" && EXTERNAL.test(tool)) return "external communication";
  return traits.capability === "execute" ? `changes the world (${traits.semantics})` : `${traits.capability} only`;
}

/** A packet's impact sentence in the tool's own words; a tool whose impact() throws is still asked about. */
export function safeImpact(tool: ToolDefinition, args: unknown): string {
  try {
    return tool.impact(args);
  } catch {
    return `${tool.name} with ${JSON.stringify(args)}`;
  }
}
