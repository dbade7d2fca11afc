import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { exportDatasetJsonl, getDataset } from "@/lib/queries/eval-records";

// GET /api/console/evals/datasets/:name/export — the dataset as a JSONL download (one case a line),
// the same text `importDataset` and the CLI read back.
export const GET = defineConsoleRoute(
  { scope: "runs:read", params: z.object({ name: z.string().min(1) }) },
  async ({ params }) => {
    const [dataset, jsonl] = await Promise.all([getDataset(params.name), exportDatasetJsonl(params.name)]);
    const filename = `${dataset.name}-${dataset.version}.jsonl`.replace(/[^a-zA-Z0-9._-]/g, "_");
    return new Response(jsonl, {
      headers: {
        "content-type": "application/jsonl; charset=utf-8",
        "content-disposition": `attachment; filename="${filename}"`,
        "cache-control": "no-store",
      },
    });
  },
);
