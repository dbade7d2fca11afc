import type { DecisionPacket } from "@/lib/runtime/types";

// A pending approval packet as the Agent Inbox's HumanInterrupt: the proposed tool call, what the reviewer
// may answer (from the packet's options), and a markdown description of the impact, the evidence, the
// model's uncertainty and why a person is asked.

export type HumanInterruptConfig = {
  allow_accept: boolean;
  allow_edit: boolean;
  allow_respond: boolean;
  allow_ignore: boolean;
};

export type HumanInterrupt = {
  /** `args` is the Agent Inbox's name; `arguments` the newer (LangChain HITL middleware) one. Same object. */
  action_request: { action: string; args: Record<string, unknown>; arguments: Record<string, unknown> };
  config: HumanInterruptConfig;
  description: string;
};

/**
 * accept = approve, edit = edit (not on a packet several people must approve: the engine refuses it),
 * respond = reject with the response as the reason, ignore = redirect (the agent is told to leave the action).
 */
export function interruptConfigOf(packet: Pick<DecisionPacket, "content" | "requiredApprovals">): HumanInterruptConfig {
  const options = packet.content.options;
  return {
    allow_accept: options.includes("approve"),
    allow_edit: options.includes("edit") && packet.requiredApprovals <= 1,
    allow_respond: options.includes("reject"),
    allow_ignore: options.includes("redirect"),
  };
}

const MAX_VALUE_CHARS = 300;

function shortJson(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

function age(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** Markdown for the Agent Inbox's description panel. Values are shown as inline code, so markdown in them is not rendered. */
export function describePacket(packet: DecisionPacket, opts: { editableFields?: readonly string[] } = {}): string {
  const { content } = packet;
  const code = (text: string) => `\`${text.replaceAll("`", "'")}\``;
  const lines = [`**Impact:** ${content.impact}`];
  if (content.why) lines.push("", `**Why a person is asked:** ${content.why}`);
  if (content.reasoning) lines.push("", `**Reasoning:** ${content.reasoning}`);
  if (content.uncertainty) lines.push("", `**Uncertainty:** ${content.uncertainty}`);
  if (content.evidence.length > 0) {
    lines.push("", "**Evidence:**");
    for (const fact of content.evidence)
      lines.push(`- ${code(fact.key)} (${fact.kind}, ${age(fact.ageMs)} old): ${code(shortJson(fact.value))}`);
  } else {
    lines.push("", "**Evidence:** none recorded.");
  }
  if (packet.requiredApprovals > 1)
    lines.push(
      "",
      `**Approvals:** ${packet.approvers.length} of ${packet.requiredApprovals} people (so it cannot be edited).`,
    );
  if (opts.editableFields)
    lines.push("", `**Editable in review:** ${opts.editableFields.map(code).join(", ") || "nothing"}.`);
  if (packet.expiresAt) lines.push("", `**Expires:** ${packet.expiresAt.toISOString()} (then: ${packet.onExpire}).`);
  lines.push("", `Tether decision packet ${code(packet.id)}, queue ${code(packet.queue)}.`);
  return lines.join("\n");
}

export function humanInterruptOf(
  packet: DecisionPacket,
  opts: { editableFields?: readonly string[] } = {},
): HumanInterrupt {
  const args =
    packet.args && typeof packet.args === "object" && !Array.isArray(packet.args)
      ? (packet.args as Record<string, unknown>)
      : { value: packet.args };
  return {
    action_request: { action: packet.tool, args, arguments: args },
    config: interruptConfigOf(packet),
    description: describePacket(packet, opts),
  };
}
