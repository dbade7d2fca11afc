import { z } from "zod";
import { CronError, nextTick, parseCron } from "./cron";

// What a person gives to create or change a schedule, checked the same way by the API, the CLI and the console.

export const OVERLAP_POLICIES = ["skip", "queue", "cancel"] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** A catch-up window longer than a week would start a week of stale runs after an outage. */
export const MAX_CATCH_UP_SECONDS = 7 * 24 * 3600;

const fields = {
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9][a-z0-9._-]*$/i, "letters, digits, dot, dash and underscore"),
  agent: z.string().min(1).max(100),
  input: z.unknown(),
  cron: z.string().trim().min(1).max(200),
  timeZone: z.string().trim().min(1).max(100),
  overlap: z.enum(OVERLAP_POLICIES),
  catchUpSeconds: z.number().int().min(0).max(MAX_CATCH_UP_SECONDS),
  paused: z.boolean(),
};

export const createScheduleInput = z
  .object({
    ...fields,
    input: fields.input.default({}),
    timeZone: fields.timeZone.default("UTC"),
    overlap: fields.overlap.default("skip"),
    catchUpSeconds: fields.catchUpSeconds.default(0),
    paused: fields.paused.default(false),
  })
  .strict()
  .superRefine(checkCron);
export type CreateScheduleInput = z.input<typeof createScheduleInput>;

export const updateScheduleInput = z
  .object({
    agent: fields.agent,
    input: fields.input,
    cron: fields.cron,
    timeZone: fields.timeZone,
    overlap: fields.overlap,
    catchUpSeconds: fields.catchUpSeconds,
    paused: fields.paused,
  })
  .partial()
  .strict();
export type UpdateScheduleInput = z.input<typeof updateScheduleInput>;

/** The cron expression must parse in its time zone and fire at least once in the next five years. */
export function checkCron(value: { cron?: string; timeZone?: string }, ctx: z.RefinementCtx) {
  if (value.cron === undefined) return;
  try {
    if (!nextTick(parseCron(value.cron, value.timeZone ?? "UTC"), new Date())) {
      ctx.addIssue({ code: "custom", path: ["cron"], message: `"${value.cron}" never fires` });
    }
  } catch (error) {
    if (!(error instanceof CronError)) throw error;
    ctx.addIssue({
      code: "custom",
      path: [/time zone/.test(error.message) ? "timeZone" : "cron"],
      message: error.message,
    });
  }
}
