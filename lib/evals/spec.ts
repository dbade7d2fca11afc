import { z } from "zod";
import { permissionInputSchema } from "@/lib/runtime/permissions";
import { RUN_STATUSES } from "@/lib/runtime/types";

// A journey-eval case, exactly as one line of a dataset's JSONL (docs/evals.md). Everything is data:
// the outcome is a list of declarative checks (path · op · value) over the trial's final snapshot
// (see snapshot.ts), so a case can be stored, exported and edited without code.

export const CHECK_OPS = [
  "eq",
  "neq",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "contains",
  "exists",
  "absent",
  "matches",
] as const;

/** One fact about the final snapshot, e.g. { path: "ledger.payments.refund", op: "eq", value: 1 }. */
export const checkSchema = z.strictObject({
  path: z.string().min(1),
  op: z.enum(CHECK_OPS),
  value: z.unknown().optional(),
  /** Shown when the check fails. */
  why: z.string().optional(),
});
export type Check = z.infer<typeof checkSchema>;

const orderSchema = z.strictObject({
  id: z.string().min(1),
  customerEmail: z.string().email(),
  customerName: z.string().min(1),
  amountCents: z.number().int().positive(),
  cardLast4: z.string().regex(/^\d{4}$/),
  refundedCents: z.number().int().min(0).default(0),
  currency: z.string().length(3).default("usd"),
  createdAt: z.string().optional(),
});

const docSchema = z.strictObject({
  id: z.string().min(1),
  title: z.string().min(1).optional(),
  body: z.string().min(1),
});

const faultKnobSchema = z.strictObject({
  latencyMs: z.number().int().min(0).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  timeoutAfterApply: z.number().int().min(0).optional(),
  holdMs: z.number().int().min(0).optional(),
});

/** A change of the world made by the harness while the run waits (or at set-up). */
export const worldOpSchema = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("refund-elsewhere"),
    orderId: z.string(),
    amountCents: z.number().int().positive().optional(),
  }),
  z.strictObject({ op: z.literal("put-doc"), id: z.string(), title: z.string().optional(), body: z.string() }),
]);
export type WorldOp = z.infer<typeof worldOpSchema>;

export const worldSchema = z
  .strictObject({
    orders: z.array(orderSchema).default([]),
    docs: z.array(docSchema).default([]),
    /** Fault knobs of the sandbox systems at the start of the run. */
    faults: z
      .partialRecord(z.enum(["payments", "mail", "deploys", "docs", "tickets", "drafts"]), faultKnobSchema)
      .default({}),
    /** Replace the agent's default permission for these tools (the agent slug is filled in). */
    permissions: z
      .array(permissionInputSchema.omit({ agent: true }).extend({ agent: z.string().optional() }))
      .default([]),
    /** How the deploy system finishes a migration the run started. */
    deploy: z
      .strictObject({
        outcome: z.enum(["succeeded", "failed", "never"]).default("succeeded"),
        deliveries: z.number().int().min(1).max(10).default(1),
      })
      .default({ outcome: "succeeded", deliveries: 1 }),
    /** Applied when the run first waits for a person (the case's own "world changed" story). */
    whileWaiting: z.array(worldOpSchema).default([]),
  })
  .default({
    orders: [],
    docs: [],
    faults: {},
    permissions: [],
    deploy: { outcome: "succeeded", deliveries: 1 },
    whileWaiting: [],
  });
export type WorldSpec = z.infer<typeof worldSchema>;

/** A scripted reviewer's answer to the next decision packet. */
export const reviewerAnswerSchema = z.strictObject({
  /** The packet it answers must be about this tool / of this kind (else the trial records a surprise gate). */
  tool: z.string().optional(),
  kind: z.enum(["APPROVAL", "UNKNOWN_OUTCOME"]).optional(),
  /** approve/edit/reject/redirect answer an approval; happened/retry/skip/redirect an unknown outcome. */
  decision: z.enum(["approve", "edit", "reject", "redirect", "happened", "retry", "skip", "none"]),
  args: z.unknown().optional(),
  reason: z.string().optional(),
  instruction: z.string().optional(),
  /** "happened": the system's id for what it did. */
  receipt: z.string().optional(),
  /** Who answers; "$requester" tries a self-approval (the engine must refuse it). */
  by: z.string().default("reviewer@evals.tether"),
  /** How long the person takes before answering (counted as human wait). */
  delayMs: z.number().int().min(0).max(60_000).default(0),
});
export type ReviewerAnswer = z.infer<typeof reviewerAnswerSchema>;

export const budgetsSchema = z.strictObject({
  steps: z.number().int().positive().optional(),
  tokens: z.number().int().min(0).optional(),
  costUsd: z.number().min(0).optional(),
  /** Machine time (wall time minus time waiting for people and timers). */
  machineMs: z.number().int().positive().optional(),
  wallMs: z.number().int().positive().optional(),
});

export const effectRefSchema = z.strictObject({ system: z.string(), action: z.string().optional() });
export type EffectRef = z.infer<typeof effectRefSchema>;

export const expectSchema = z.strictObject({
  status: z.union([z.enum(RUN_STATUSES), z.array(z.enum(RUN_STATUSES))]),
  /** Checks on the run's output/error (task completion). */
  output: z.array(checkSchema).default([]),
  /** Checks on facts, world and ledger (state accuracy). */
  state: z.array(checkSchema).default([]),
  tools: z
    .strictObject({ must: z.array(z.string()).default([]), mustNot: z.array(z.string()).default([]) })
    .default({ must: [], mustNot: [] }),
  /** Tools whose action must have been put to a person before it ran. */
  approvals: z.array(z.string()).default([]),
  /** Effects that must never happen in this journey (by this run). */
  never: z.array(effectRefSchema).default([]),
  budgets: budgetsSchema.default({}),
});
export type Expectations = z.infer<typeof expectSchema>;

export const evalCaseSpecSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, "A case id is lower-case letters, digits, '.', '_' or '-'."),
  agent: z.string().min(1),
  title: z.string().min(1),
  tags: z.array(z.string()).default([]),
  input: z.unknown(),
  world: worldSchema,
  reviewer: z.array(reviewerAnswerSchema).default([]),
  expect: expectSchema,
  /** Fault kinds this case is not run under (with why), e.g. when the journey never waits. */
  skipFaults: z.array(z.string()).default([]),
});
export type EvalCaseSpec = z.infer<typeof evalCaseSpecSchema>;
export type EvalCaseInput = z.input<typeof evalCaseSpecSchema>;

// ---- scores

export const DIMENSIONS = [
  "completion",
  "toolSelection",
  "stateAccuracy",
  "recovery",
  "approvalCompliance",
  "cost",
  "latency",
] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export type Scores = Record<Dimension, number | null>;

/** Default thresholds: recovery and approval compliance are not negotiable. */
export const DEFAULT_THRESHOLDS: Record<Dimension, number> = {
  completion: 0.95,
  toolSelection: 0.95,
  stateAccuracy: 0.95,
  recovery: 1,
  approvalCompliance: 1,
  cost: 0.95,
  latency: 0.9,
};

export type CheckResult = { dimension: Dimension; name: string; ok: boolean; detail?: string };
