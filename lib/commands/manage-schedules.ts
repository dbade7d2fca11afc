import { randomUUID } from "node:crypto";
import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import { AppError, fieldErrorsFromIssues, parseInput } from "@/lib/runtime/errors";
import { nextTick, parseCron } from "@/lib/schedules/cron";
import { checkCron, createScheduleInput, updateScheduleInput } from "@/lib/schedules/schedule-input";

// Creating, changing, pausing, resuming and deleting schedules. Each change and its audit row are
// written in one transaction; the actor is the person or token on whose behalf it is made.

export type ScheduleDeps = { db: Db; runtime: Runtime };
type Actor = { by: string; via?: string };
type ScheduleRow = Awaited<ReturnType<Db["schedule"]["findUniqueOrThrow"]>>;

function invalid(message: string, issues: Parameters<typeof fieldErrorsFromIssues>[0]) {
  return new AppError("INVALID_INPUT", { message, userMessage: message, fieldErrors: fieldErrorsFromIssues(issues) });
}

/** The agent must be loaded, not internal, and take the input: a schedule that could never start a run is refused now. */
function checkAgentInput(runtime: Runtime, agent: string, input: unknown) {
  const definition = runtime.context.agents.get(agent);
  if (!definition || definition.internal) {
    throw new AppError("INVALID_INPUT", {
      message: `agent ${agent} not found`,
      userMessage: `There is no agent called "${agent}" to schedule.`,
      fieldErrors: { agent: ["No such agent."] },
    });
  }
  const parsed = definition.input.safeParse(input);
  if (!parsed.success)
    throw invalid(
      `The input does not match ${agent}'s input schema.`,
      parsed.error.issues.map((i) => ({ ...i, path: ["input", ...i.path] })),
    );
}

const firstTick = (cron: string, timeZone: string, now: Date) => nextTick(parseCron(cron, timeZone), now);

async function findOrThrow(db: Db, id: string): Promise<ScheduleRow> {
  const row = await db.schedule.findUnique({ where: { id } });
  if (!row)
    throw new AppError("NOT_FOUND", {
      message: `schedule ${id} not found`,
      userMessage: "That schedule does not exist.",
    });
  return row;
}

export async function createSchedule(deps: ScheduleDeps, raw: unknown, actor: Actor) {
  const input = parseInput(createScheduleInput, raw, "schedule", "The schedule is not valid.");
  checkAgentInput(deps.runtime, input.agent, input.input);
  const now = deps.runtime.context.clock.now();
  const id = `sch_${randomUUID().replaceAll("-", "")}`;
  try {
    return await deps.db.$transaction(async (tx) => {
      const row = await tx.schedule.create({
        data: {
          id,
          name: input.name,
          agent: input.agent,
          input: JSON.stringify(input.input ?? null),
          cron: input.cron,
          timeZone: input.timeZone,
          overlap: input.overlap,
          catchUpSeconds: input.catchUpSeconds,
          paused: input.paused,
          nextFireAt: input.paused ? null : firstTick(input.cron, input.timeZone, now),
          createdBy: actor.by,
        },
      });
      await writeAudit(tx, {
        actor: actor.by,
        action: "schedules.create",
        target: id,
        data: { ...auditedFields(row), via: actor.via },
      });
      return row;
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") {
      throw new AppError("CONFLICT", {
        message: `schedule ${input.name} exists`,
        userMessage: `A schedule called "${input.name}" already exists.`,
        fieldErrors: { name: ["Taken."] },
      });
    }
    throw error;
  }
}

/** Changes fields; a changed cron or time zone, or a resume, counts the next tick from now. */
export async function updateSchedule(deps: ScheduleDeps, id: string, raw: unknown, actor: Actor & { action?: string }) {
  const patch = parseInput(updateScheduleInput, raw, "change", "The change is not valid.");
  const before = await findOrThrow(deps.db, id);
  const next = { ...auditedFields(before), ...patch };
  const cronCheck = updateScheduleInput.superRefine(checkCron).safeParse({ cron: next.cron, timeZone: next.timeZone });
  if (!cronCheck.success) throw invalid("The schedule is not valid.", cronCheck.error.issues);
  if (patch.agent !== undefined || patch.input !== undefined) checkAgentInput(deps.runtime, next.agent, next.input);
  const retime = patch.cron !== undefined || patch.timeZone !== undefined || (before.paused && next.paused === false);
  const nextFireAt = next.paused
    ? null
    : retime || !before.nextFireAt
      ? firstTick(next.cron, next.timeZone, deps.runtime.context.clock.now())
      : before.nextFireAt;
  return deps.db.$transaction(async (tx) => {
    const row = await tx.schedule.update({
      where: { id },
      data: {
        agent: next.agent,
        input: JSON.stringify(next.input ?? null),
        cron: next.cron,
        timeZone: next.timeZone,
        overlap: next.overlap,
        catchUpSeconds: next.catchUpSeconds,
        paused: next.paused,
        nextFireAt,
      },
    });
    // A change of `paused` alone is a pause or a resume, whichever surface made it.
    const onlyPaused = Object.keys(patch).length === 1 && patch.paused !== undefined;
    const action =
      actor.action ?? (onlyPaused ? (patch.paused ? "schedules.pause" : "schedules.resume") : "schedules.update");
    await writeAudit(tx, {
      actor: actor.by,
      action,
      target: id,
      data: { before: auditedFields(before), after: auditedFields(row), via: actor.via },
    });
    return row;
  });
}

/** Paused: no tick fires (nor is caught up on resume); ticks already queued wait for the resume. */
export const pauseSchedule = (deps: ScheduleDeps, id: string, actor: Actor) =>
  updateSchedule(deps, id, { paused: true }, { ...actor, action: "schedules.pause" });
export const resumeSchedule = (deps: ScheduleDeps, id: string, actor: Actor) =>
  updateSchedule(deps, id, { paused: false }, { ...actor, action: "schedules.resume" });

/** Deletes the schedule and its fire history; the runs it started stay. */
export async function deleteSchedule(deps: ScheduleDeps, id: string, actor: Actor) {
  const before = await findOrThrow(deps.db, id);
  await deps.db.$transaction(async (tx) => {
    await tx.schedule.delete({ where: { id } });
    await writeAudit(tx, {
      actor: actor.by,
      action: "schedules.delete",
      target: id,
      data: { ...auditedFields(before), via: actor.via },
    });
  });
}

/** A schedule by id or by name (the CLI takes either). */
export async function findSchedule(db: Db, idOrName: string): Promise<ScheduleRow> {
  const row = await db.schedule.findFirst({ where: { OR: [{ id: idOrName }, { name: idOrName }] } });
  if (!row)
    throw new AppError("NOT_FOUND", {
      message: `schedule ${idOrName} not found`,
      userMessage: `There is no schedule "${idOrName}".`,
    });
  return row;
}

function auditedFields(row: ScheduleRow) {
  return {
    name: row.name,
    agent: row.agent,
    input: JSON.parse(row.input) as unknown,
    cron: row.cron,
    timeZone: row.timeZone,
    overlap: row.overlap as "skip" | "queue" | "cancel",
    catchUpSeconds: row.catchUpSeconds,
    paused: row.paused,
  };
}
