import { handleSandboxRequest, json, pathParams } from "@/lib/sandbox/http";
import { findCustomerOrders } from "@/lib/sandbox/orders";

type Context = { params: Promise<{ email: string }> };

/** GET /api/sandbox/customers/:email/orders → `{ orders }`, newest first (empty for an unknown customer). */
export async function GET(request: Request, { params }: Context) {
  return handleSandboxRequest(request, { system: "payments" }, async ({ db }) => {
    const { email } = await pathParams(params);
    return json({ orders: await findCustomerOrders(db, email) });
  });
}
