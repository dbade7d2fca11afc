import { defineConsoleRoute } from "@/lib/api/console-route";
import { csvStream } from "@/lib/csv";
import {
  DECISION_HISTORY_CSV_HEADER,
  decisionHistoryQuerySchema,
  findDecisionHistoryCsvRecords,
} from "@/lib/queries/decision-history";

export const dynamic = "force-dynamic";

// GET /api/console/packets/history.csv?reviewer=&tool=&decision=&from=&to= — the decision history with
// the history page's filters, as a CSV download for audits. Streamed: rows are read in keyset batches
// as the download proceeds, never the whole history at once. A filter that does not parse is a 400, not
// dropped: an export must not silently hold more than was asked for.
export const GET = defineConsoleRoute(
  { scope: "packets:read", query: decisionHistoryQuerySchema },
  async ({ query, db }) => {
    const range = [query.from ?? "start", query.to ?? new Date().toISOString().slice(0, 10)].join("_");
    return new Response(csvStream(DECISION_HISTORY_CSV_HEADER, findDecisionHistoryCsvRecords(db, query)), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="decision-history_${range}.csv"`,
        "cache-control": "no-store",
      },
    });
  },
);
