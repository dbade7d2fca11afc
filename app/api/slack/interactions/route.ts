import { readBodyBytes } from "@/lib/api/body";
import { bodyError, errorResponse } from "@/lib/api/route";
import { slackSettings } from "@/lib/slack/config";
import { slackInteractionDeps } from "@/lib/slack/console-deps";
import { handleSlackInteraction, parseInteractionBody, sendSlackReply } from "@/lib/slack/handle-interaction";
import { verifySlackRequest } from "@/lib/slack/verify-request";

export const dynamic = "force-dynamic";

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Slack's Interactivity Request URL: a click on a notification's Approve/Reject button. Signed by Slack
 * (401 otherwise); the decision is made as the Slack user's Tether person; the answer is posted to the
 * message's response_url and also returned (200).
 */
export async function POST(request: Request): Promise<Response> {
  try {
    const rawBody = new TextDecoder().decode(await readBodyBytes(request, MAX_BODY_BYTES));
    const settings = slackSettings();
    verifySlackRequest(request.headers, rawBody, settings.signingSecret, new Date());
    const payload = parseInteractionBody(rawBody);
    const reply = await handleSlackInteraction(slackInteractionDeps(settings), payload);
    if (!reply) return new Response(null, { status: 200 });
    await sendSlackReply(payload.response_url, reply);
    return Response.json(reply);
  } catch (error) {
    return errorResponse(bodyError(error));
  }
}
