import { defineRoute } from "@/lib/api/route";
import { idParams, signalBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

/** An external callback: 202 when accepted, 200 {duplicate: true} when its dedupKey was seen before. */
export const POST = defineRoute(
  { scope: "signals:write", params: idParams, body: signalBody },
  async ({ params, body, runtime }) => {
    const { signal, duplicate } = await runtime.deliverSignal(params.id, body);
    return Response.json({ id: signal.id, duplicate }, { status: duplicate ? 200 : 202 });
  },
);
