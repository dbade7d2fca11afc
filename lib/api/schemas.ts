import { z } from "zod";
import { budgetLimitsSchema } from "@/lib/runtime/state";
import { RUN_STATUSES } from "@/lib/runtime/types";

// Request shapes of the HTTP API (docs/api.md: clients outside this repo depend on them).

export const idParams = z.object({ id: z.string().min(1).max(200) });

export const startRunBody = z.object({
  agent: z.string().min(1),
  input: z.unknown(),
  idempotencyKey: z.string().min(1).max(200).optional(),
  /** Optional per-run budget; each field overrides the agent's (toolCalls, tokens, usd). */
  budget: budgetLimitsSchema.optional(),
});

export const listRunsQuery = z.object({
  status: z.enum(RUN_STATUSES).optional(),
  agent: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});

export const eventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

export const cancelBody = z.object({ reason: z.string().max(1000).optional() });

export const signalBody = z.object({
  type: z.string().min(1).max(100),
  dedupKey: z.string().min(1).max(200),
  payload: z.unknown().default({}),
});

export const packetsQuery = z.object({
  status: z.enum(["pending", "decided", "all"]).default("pending"),
  runId: z.string().optional(),
  queue: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
