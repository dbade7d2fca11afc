// A failed decision → what the reviewer reads. The codes come from the runtime (lib/runtime/errors.ts):
// a lost race, an expired packet and stale evidence each get their own title, so nobody mistakes one
// for another.

export type DecisionProblem = {
  kind: "race" | "expired" | "stale" | "forbidden" | "invalid" | "other";
  title: string;
  message: string;
};

export function describeDecisionError(code: string, message: string): DecisionProblem {
  switch (code) {
    case "PACKET_ALREADY_DECIDED":
    case "CONFLICT":
      return { kind: "race", title: "Someone else decided this packet first.", message };
    case "PACKET_EXPIRED":
      return { kind: "expired", title: "This packet has expired.", message };
    case "PACKET_STALE":
      return { kind: "stale", title: "The evidence changed: this packet is stale.", message };
    case "FORBIDDEN":
      return { kind: "forbidden", title: "You may not make this decision.", message };
    case "INVALID_INPUT":
      return { kind: "invalid", title: "Check the highlighted fields.", message };
    default:
      return { kind: "other", title: "The decision was not recorded.", message };
  }
}
