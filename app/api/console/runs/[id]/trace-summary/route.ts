import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { findTraceSummary } from "@/lib/queries/run-trace-summary";

export const dynamic = "force-dynamic";

/** The whole trace in numbers (counts per event type, cost per step): the live run page asks again when the run's last event moves. */
export const GET = defineConsoleRoute(
  { scope: "runs:read", params: z.object({ id: z.string().min(1).max(200) }) },
  ({ params, db }) => findTraceSummary(db, params.id),
);
