import { defineConsoleRoute } from "@/lib/api/console-route";
import { idParams } from "@/lib/api/schemas";
import { findTraceSummary } from "@/lib/queries/run-trace-summary";

export const dynamic = "force-dynamic";

/** The whole trace in numbers (counts per event type, cost per step): the live run page asks again when the run's last event moves. */
export const GET = defineConsoleRoute({ scope: "runs:read", params: idParams }, ({ params, db }) =>
  findTraceSummary(db, params.id),
);
