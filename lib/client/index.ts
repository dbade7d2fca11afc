// Tether's client for open gates: put a person between an agent you already have and the actions that matter.
// Shaped as a package of its own (`@tether/client`): it imports nothing from the app and needs only fetch.
// withApproval, for Vercel AI SDK tools, is its own entry (./ai-sdk.ts) since it imports `ai`. The guide is docs/gates.md.
export { createTetherClient, type TetherClient, type TetherClientOptions, type WaitOptions } from "./client";
export { TetherApiError, type FieldErrors } from "./errors";
export { isApproved, isDecided } from "./types";
export type {
  ApprovedGateStatus,
  Gate,
  GateCreated,
  GateEvidence,
  GateExpiryPolicy,
  GateOutcome,
  GateOutcomeInput,
  GateStatus,
  JsonObject,
  OutcomeStatus,
  RefusedGateStatus,
  RequestApprovalInput,
} from "./types";
