import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { getEvalRunProgress } from "@/lib/queries/evals";

// GET /api/console/evals/runs/:id — a running eval's progress (status, trials stored so far), polled
// by the eval-run page; the page re-renders itself from the server when it changes.
export const GET = defineConsoleRoute(
  { scope: "runs:read", params: z.object({ id: z.string().min(1) }) },
  async ({ params }) => getEvalRunProgress(params.id),
);
