import { handleSandboxRequest, json, pathParams } from "@/lib/sandbox/http";
import { getTicket } from "@/lib/sandbox/tickets";

type Context = { params: Promise<{ id: string }> };

/** GET /api/sandbox/tickets/:id → `{ id, subject, body, status, customerEmail, createdAt }`. */
export async function GET(request: Request, { params }: Context) {
  return handleSandboxRequest(request, { system: "tickets" }, async ({ db }) => {
    const { id } = await pathParams(params);
    return json(await getTicket(db, id));
  });
}
