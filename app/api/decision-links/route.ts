import { readBodyBytes, readJsonBody } from "@/lib/api/body";
import { bodyError, errorResponse } from "@/lib/api/route";
import { decisionLinkDeps } from "@/lib/decision-links/console-deps";
import { decideByLink } from "@/lib/decision-links/decide-by-link";
import { isAppError } from "@/lib/runtime/errors";

export const dynamic = "force-dynamic";

/**
 * Confirms a decision link: {token, decision: approve|reject|redirect|…, reason?, instruction?}, as JSON
 * (→ 200 {packet}, or the API's error shape) or as the link page's form (→ 303 back to /d/<token>, which
 * then shows the outcome). No session: the link's token is the credential, bound to one person and packet.
 */
export async function POST(request: Request): Promise<Response> {
  const isForm = (request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
  let body: Record<string, unknown> = {};
  try {
    body = isForm
      ? Object.fromEntries(
          new URLSearchParams(new TextDecoder().decode(await readBodyBytes(request, FORM_LIMIT_BYTES))),
        )
      : await readBody(request);
    const { packet, decidedAs } = await decideByLink(decisionLinkDeps(), body);
    if (isForm) return backToLink(body.token, "done");
    return Response.json({
      packet: { id: packet.id, runId: packet.runId, status: packet.status, decidedBy: packet.decidedBy },
      decidedAs,
    });
  } catch (error) {
    if (isForm) return backToLink(body.token, isAppError(error) ? error.code : "INTERNAL");
    return errorResponse(bodyError(error));
  }
}

const FORM_LIMIT_BYTES = 16 * 1024; // a token, a choice and a reason or an instruction

/** The JSON body as an object (the API's size and depth limits); anything else is read as empty and refused by the schema. */
async function readBody(request: Request): Promise<Record<string, unknown>> {
  const json = await readJsonBody(request);
  return json && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
}

/** The link page again, told how the confirmation went (a code: the page words it; nothing from the request is echoed). */
function backToLink(token: unknown, outcome: string): Response {
  const path = `/d/${encodeURIComponent(typeof token === "string" ? token.slice(0, 200) : "")}?outcome=${encodeURIComponent(outcome)}`;
  return new Response(null, { status: 303, headers: { location: path, "referrer-policy": "no-referrer" } });
}
