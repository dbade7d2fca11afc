import { handleSandboxRequest, json, parseBody, readCaller } from "@/lib/sandbox/http";
import { sendMail, sendMailSchema } from "@/lib/sandbox/mail";

/** POST /api/sandbox/mail/send `{ to, subject, body }` (+ X-Tether-Operation-Id) → 200. Not idempotent. */
export async function POST(request: Request) {
  return handleSandboxRequest(request, { system: "mail", effect: true }, async ({ db }) => {
    const input = await parseBody(request, sendMailSchema);
    return json(await sendMail(db, { ...input, caller: readCaller(request) }));
  });
}
