import { handleSandboxRequest, json, pathParams } from "@/lib/sandbox/http";
import { getOrder } from "@/lib/sandbox/orders";

type Context = { params: Promise<{ id: string }> };

/** GET /api/sandbox/orders/:id → the order (404 `not_found`). */
export async function GET(request: Request, { params }: Context) {
  return handleSandboxRequest(request, { system: "payments" }, async ({ db }) => {
    const { id } = await pathParams(params);
    return json(await getOrder(db, id));
  });
}
