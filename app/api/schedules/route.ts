import { z } from "zod";
import { defineRoute, tokenActor } from "@/lib/api/route";
import { createSchedule } from "@/lib/commands/manage-schedules";
import { listSchedules, presentSchedule } from "@/lib/queries/schedules";

export const dynamic = "force-dynamic";

const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(200) });

export const GET = defineRoute({ scope: "schedules:read", query: listQuery }, async ({ query, db }) => ({
  schedules: await listSchedules(db, query),
}));

/** Creates a schedule (201); its body is checked by lib/schedules/schedule-input.ts. */
export const POST = defineRoute(
  { scope: "schedules:write", body: z.unknown() },
  async ({ body, principal, runtime, db }) => {
    const row = await createSchedule({ db, runtime }, body, tokenActor(principal));
    return Response.json(presentSchedule(row), { status: 201 });
  },
);
