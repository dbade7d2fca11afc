import { handleSandboxRequest, json, parseQuery } from "@/lib/sandbox/http";
import { findSentMail, findSentMailSchema } from "@/lib/sandbox/mail";

/** GET /api/sandbox/mail/sent?operationId=… → `{ message }`: the first message sent with it, or null. */
export async function GET(request: Request) {
  return handleSandboxRequest(request, { system: "mail" }, async ({ db }) => {
    const { operationId } = parseQuery(request, findSentMailSchema);
    return json({ message: await findSentMail(db, operationId) });
  });
}
