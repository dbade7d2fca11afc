// The shapes of Tether's open-gate HTTP API (POST /api/gates, GET /api/gates/:id, POST /api/gates/:id/outcome),
// as a client outside the repo sees them. docs/gates-api.md is the reference; these types follow it.

export type JsonObject = { [key: string]: unknown };

export type GateStatus = "pending" | "approved" | "edited" | "rejected" | "redirected" | "expired";
/** The decided statuses under which the caller may act: the approved (or edited) arguments are in `approvedArgs`. */
export type ApprovedGateStatus = Extract<GateStatus, "approved" | "edited">;
/** The decided statuses under which the caller must not act. */
export type RefusedGateStatus = Extract<GateStatus, "rejected" | "redirected" | "expired">;

export type GateEvidence = { key: string; value: unknown; source?: string; at?: string };

/** `"reject"` (the default), `"escalate:<queue>"`, or `"approve"` (only when said explicitly). */
export type GateExpiryPolicy = "reject" | "approve" | `escalate:${string}`;

export type RequestApprovalInput<Args extends JsonObject = JsonObject> = {
  action: {
    tool: string;
    args: Args;
    /** JSON Schema of `args`: the reviewer's edit form, and edits are checked against it. */ schema?: JsonObject;
  };
  /** The same key returns the same gate (a retry after a crash does not ask twice); 1..200 characters. */
  idempotencyKey: string;
  /** Markdown, up to 4000 characters. */
  description?: string;
  evidence?: GateEvidence[];
  impact?: string;
  uncertainty?: string;
  /** An existing decision queue; "default" when omitted. */
  queue?: string;
  /** Distinct people who must approve, 1..5 (default 1). An action that needs several cannot be edited. */
  approvals?: number;
  /** Seconds, or "90s" | "30m" | "24h" | "7d". No expiry when omitted. */
  expiresIn?: number | string;
  onExpiry?: GateExpiryPolicy;
  /** http(s): receives the decision, signed the Standard Webhooks way with `callbackSecret`. */
  callbackUrl?: string;
  /** Up to 8 KB, returned as given. */
  metadata?: JsonObject;
};

export type GateCreated = {
  gateId: string;
  status: GateStatus;
  statusUrl: string;
  /** false: the idempotency key was known and this is the gate it made before. */
  created: boolean;
  /** `whsec_…`, returned once, when a callbackUrl was given. */
  callbackSecret?: string;
};

export type OutcomeStatus = "happened" | "failed" | "not_done";
export type GateOutcomeInput = { status: OutcomeStatus; receipt?: string | JsonObject; detail?: string };
export type GateOutcome = { status: OutcomeStatus; receipt?: unknown; detail?: string; reportedAt: string };

export type Gate<Args extends JsonObject = JsonObject> = {
  gateId: string;
  status: GateStatus;
  action: { tool: string; args: Args };
  /** What to run: the requested args (approved) or a reviewer's edit of them (edited); null otherwise. */
  approvedArgs: Args | null;
  /** A rejection's reason, a redirect's instruction, or the expiry's account. */
  reason: string | null;
  approvers: string[];
  decidedBy: string | null;
  decidedAt: string | null;
  digest: string | null;
  packetId: string | null;
  expiresAt: string | null;
  outcome: GateOutcome | null;
  metadata: JsonObject | null;
  createdAt: string;
};

export const isApproved = <Args extends JsonObject>(
  gate: Gate<Args>,
): gate is Gate<Args> & { status: ApprovedGateStatus; approvedArgs: Args } =>
  (gate.status === "approved" || gate.status === "edited") && gate.approvedArgs !== null;

export const isDecided = (gate: Pick<Gate, "status">): boolean => gate.status !== "pending";
