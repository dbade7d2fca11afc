import type { JSONSchema7 } from "ai";
import { z } from "zod";
import type { ControlTool } from "../model-prompt";

// The control tools (complete, fail, sleep, wait_event, record): their JSON schemas for the model, and zod to
// check what it sent.

const planUpdate = z.array(
  z.object({ id: z.string(), status: z.enum(["pending", "active", "done", "skipped", "failed"]) }),
);
/** A `record` call's plan updates. */
export type PlanUpdate = z.infer<typeof planUpdate>;

const PLAN_STATUSES = ["pending", "active", "done", "skipped", "failed"];

export const CONTROL: Record<
  ControlTool,
  { description: string; json: (planIds: string[]) => JSONSchema7; check: z.ZodType<Record<string, unknown>> }
> = {
  complete: {
    description:
      "Finish the run with its output. Only when the task is done (or there is nothing left to do) and the facts support it.",
    json: () => ({
      type: "object",
      properties: {
        output: { description: "The run's result: a JSON value a person or program can read." },
        reasoning: { type: "string" },
      },
      required: ["output"],
    }),
    check: z.object({ output: z.unknown(), reasoning: z.string().optional() }),
  },
  fail: {
    description: "Stop the run as failed, with the reason. Use when the task cannot be done.",
    json: () => ({ type: "object", properties: { reason: { type: "string" } }, required: ["reason"] }),
    check: z.object({ reason: z.string().min(1) }),
  },
  sleep: {
    description: "Wait for a duration (a durable timer: the run survives restarts), then decide again.",
    json: () => ({
      type: "object",
      properties: { durationMs: { type: "integer", minimum: 1 }, reason: { type: "string" } },
      required: ["durationMs", "reason"],
    }),
    check: z.object({ durationMs: z.number().int().positive(), reason: z.string().optional() }),
  },
  wait_event: {
    description: "Wait for an external event (a signal of this type: a callback, a reply), optionally with a timeout.",
    json: () => ({
      type: "object",
      properties: {
        eventType: { type: "string" },
        timeoutMs: { type: "integer", minimum: 1 },
        reason: { type: "string" },
      },
      required: ["eventType"],
    }),
    check: z.object({
      eventType: z.string().min(1),
      timeoutMs: z.number().int().positive().optional(),
      reason: z.string().optional(),
    }),
  },
  record: {
    description:
      "Write down conclusions as facts (kept as unverified inferences) and/or update the plan's step statuses. It takes a step; prefer acting when you can.",
    json: (planIds) => ({
      type: "object",
      properties: {
        facts: {
          type: "array",
          items: {
            type: "object",
            properties: { key: { type: "string" }, value: { description: "any JSON value" } },
            required: ["key", "value"],
          },
        },
        ...(planIds.length
          ? {
              plan: {
                type: "array",
                description: "Status updates for plan steps.",
                items: {
                  type: "object",
                  properties: {
                    id: { type: "string", enum: planIds },
                    status: { type: "string", enum: PLAN_STATUSES },
                  },
                  required: ["id", "status"],
                },
              },
            }
          : {}),
        reason: { type: "string" },
      },
      required: ["facts"],
    }),
    check: z
      .object({
        facts: z.array(z.object({ key: z.string().min(1), value: z.unknown() })).default([]),
        plan: planUpdate.optional(),
        reason: z.string().optional(),
      })
      .refine((r) => r.facts.length > 0 || (r.plan?.length ?? 0) > 0, "record needs at least one fact or plan update"),
  },
};
