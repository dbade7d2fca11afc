import { z } from "zod";
import { defineRoute, tokenActor } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { deleteSchedule, updateSchedule } from "@/lib/commands/manage-schedules";
import { getScheduleDetail, presentSchedule } from "@/lib/queries/schedules";

export const dynamic = "force-dynamic";

const detailQuery = z.object({ fires: z.coerce.number().int().min(1).max(500).default(50) });

/** The schedule, its next ticks and its newest fires. */
export const GET = defineRoute(
  { scope: "schedules:read", params: idParams, query: detailQuery },
  async ({ params, query, db }) => getScheduleDetail(db, params.id, query),
);

/** Changes fields; `{"paused": true|false}` pauses or resumes. */
export const PATCH = defineRoute(
  { scope: "schedules:write", params: idParams, body: z.unknown() },
  async ({ params, body, principal, runtime, db }) =>
    presentSchedule(await updateSchedule({ db, runtime }, params.id, body, tokenActor(principal))),
);

/** Deletes the schedule and its fire history; the runs it started stay. */
export const DELETE = defineRoute(
  { scope: "schedules:write", params: idParams },
  async ({ params, principal, runtime, db }) => {
    await deleteSchedule({ db, runtime }, params.id, tokenActor(principal));
    return { deleted: params.id };
  },
);
