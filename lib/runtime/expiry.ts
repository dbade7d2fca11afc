// What a decision packet does when its deadline passes (a permission rule's or an open gate's `onExpire`),
// one parser for both, round-tripping through the packet's and the rule's `onExpire` text column:
//   reject                          the action is turned down (the default)
//   approve                         the action is approved by the expiry — only where a rule or a gate says
//                                   so explicitly; recorded as decided by `system:expiry`
//   escalate:<queue>                moved to <queue> with the packet's original window, then rejected
//   escalate:<q1>@<d1>,<q2>@<d2>    a chain: to q1 with deadline d1, on its expiry to q2 with d2, …, then
//                                   rejected. A step without "@<d>" gets the packet's first window (written
//                                   out as "@<d>" in what stays of the chain once the packet escalates).
// Durations are "<n>s" | "<n>m" | "<n>h" | "<n>d".

export type EscalationStep = { queue: string; /** null: the packet's original window */ windowMs: number | null };
export type ExpiryPolicy = { kind: "reject" } | { kind: "approve" } | { kind: "escalate"; chain: EscalationStep[] };

const QUEUE = /^[\w-]{1,100}$/;
const DURATION = /^(\d{1,9})(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_CHAIN = 5;

export const EXPIRY_POLICY_HINT =
  '"reject", "approve", "escalate:<queue>", or a chain "escalate:<queue>@<2h>,<queue>@<1d>" (then reject)';

/** "90s" | "30m" | "24h" | "7d" → milliseconds; null when it is not one. */
export function parseDurationText(text: string): number | null {
  const m = DURATION.exec(text.trim());
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]];
  return ms > 0 ? ms : null;
}

/** The duration as the policy text writes it (the largest unit that divides it). */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"]) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${Math.max(1, Math.round(ms / 1000))}s`;
}

/** A duration for people to read, in the largest whole unit: "3 min", "2 h". */
export function formatAge(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, "d"],
    [3_600_000, "h"],
    [60_000, "min"],
    [1_000, "s"],
  ];
  const [size, unit] = units.find(([u]) => ms >= u) ?? [1_000, "s"];
  return `${Math.floor(ms / size)} ${unit}`;
}

/** The policy, or why the text is not one. */
export function parseExpiryPolicy(text: string): { ok: true; policy: ExpiryPolicy } | { ok: false; reason: string } {
  const value = text.trim();
  if (value === "reject") return { ok: true, policy: { kind: "reject" } };
  if (value === "approve") return { ok: true, policy: { kind: "approve" } };
  if (!value.startsWith("escalate:")) return { ok: false, reason: `use ${EXPIRY_POLICY_HINT}` };
  const parts = value.slice("escalate:".length).split(",");
  if (parts.length > MAX_CHAIN) return { ok: false, reason: `an escalation chain has at most ${MAX_CHAIN} queues` };
  const chain: EscalationStep[] = [];
  for (const part of parts) {
    const [queue, duration, extra] = part.trim().split("@");
    if (extra !== undefined || !queue || !QUEUE.test(queue))
      return {
        ok: false,
        reason: `"${part}" is not a queue (letters, digits, - and _) with an optional "@<duration>"`,
      };
    if (duration === undefined) {
      chain.push({ queue, windowMs: null });
      continue;
    }
    const windowMs = parseDurationText(duration);
    if (windowMs === null) return { ok: false, reason: `"${duration}" is not a duration: write 90s, 30m, 24h or 7d` };
    chain.push({ queue, windowMs });
  }
  return { ok: true, policy: { kind: "escalate", chain } };
}

/** The policy as its text (parseExpiryPolicy's inverse). */
export function formatExpiryPolicy(policy: ExpiryPolicy): string {
  if (policy.kind !== "escalate") return policy.kind;
  if (policy.chain.length === 0) return "reject";
  return `escalate:${policy.chain.map((s) => (s.windowMs === null ? s.queue : `${s.queue}@${formatDuration(s.windowMs)}`)).join(",")}`;
}

/** A stored value that no longer parses (written before this parser, or by hand) counts as "reject": never an approval. */
export function expiryPolicyOf(text: string): ExpiryPolicy {
  const parsed = parseExpiryPolicy(text);
  return parsed.ok ? parsed.policy : { kind: "reject" };
}

/** The queues an expiry policy may move a packet to, in order. */
export const escalationQueues = (policy: ExpiryPolicy): string[] =>
  policy.kind === "escalate" ? policy.chain.map((s) => s.queue) : [];
