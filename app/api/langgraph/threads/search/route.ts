import { langGraphPreflight } from "@/lib/langgraph/cors";
import { presentThread } from "@/lib/langgraph/present";
import { defineLangGraphRoute } from "@/lib/langgraph/route";
import { searchThreadsBody } from "@/lib/langgraph/schemas";
import { searchThreads } from "@/lib/langgraph/threads";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Threads (runs), newest first unless sort_by/sort_order say otherwise: offset, limit ≤ 100, status, metadata.graph_id. */
export const POST = defineLangGraphRoute(
  { scope: "runs:read", body: searchThreadsBody },
  async ({ body, runtime, db }) => {
    const views = await searchThreads(
      { runtime, db },
      {
        offset: body.offset,
        limit: body.limit,
        status: body.status ?? undefined,
        ids: body.ids ?? undefined,
        graphId: body.metadata?.graph_id ?? body.metadata?.assistant_id,
        sortBy: body.sort_by ?? "created_at",
        sortOrder: body.sort_order ?? "desc",
      },
    );
    return views.map(presentThread);
  },
);
