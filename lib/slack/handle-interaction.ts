import { asSystem, inWorkspace } from "@/lib/runtime/workspace";
import { z } from "zod";
import { tryParseJson } from "@/lib/client/json";
import type { Db } from "@/lib/db";
import { AppError, isAppError } from "@/lib/runtime/errors";
import type { DecisionPacket } from "@/lib/runtime/types";
import type { DecidePacketOptions } from "@/lib/runtime/decide-packet";
import { SLACK_ACTIONS, type SlackSettings } from "./config";
import { slackUserEmail } from "./user-email";

// A click on a notification's Approve or Reject button (a block_actions payload, already verified as
// Slack's: verify-request.ts). The Slack user becomes a Tether person by email (users.info); an unknown
// person is refused with an ephemeral message. The decision then goes through runtime.decidePacket as that
// person — role, queue deciders, separation of duties — and only if the packet's action digest is still the
// one the button carries. The answer goes to the message's response_url: the message is replaced to say
// who decided, and a refusal is shown only to the person who clicked. A refusal writes nothing.

const actionValueSchema = z.object({ packetId: z.string().min(1).max(200), digest: z.string().min(1).max(200) });

const blockActionsSchema = z
  .object({
    type: z.string(),
    user: z.object({ id: z.string().min(1).max(100) }).passthrough(),
    response_url: z.url().optional(),
    actions: z.array(z.object({ action_id: z.string(), value: z.string().optional() }).passthrough()).default([]),
  })
  .passthrough();

export type SlackReply = { response_type?: "ephemeral" | "in_channel"; replace_original: boolean; text: string };

export type SlackInteractionDeps = {
  db: Pick<Db, "user">;
  getPacket: (id: string) => Promise<DecisionPacket | null>;
  decide: (opts: DecidePacketOptions) => Promise<DecisionPacket>;
  settings: Pick<SlackSettings, "apiUrl" | "botToken">;
};

const ephemeral = (text: string): SlackReply => ({ response_type: "ephemeral", replace_original: false, text });

/** Reads the form body's `payload`; INVALID_INPUT (400) naming the field when it is not a Slack payload. */
export function parseInteractionBody(rawBody: string) {
  const payload = new URLSearchParams(rawBody).get("payload");
  let json: unknown;
  try {
    json = payload === null ? undefined : JSON.parse(payload);
  } catch {
    json = undefined;
  }
  const parsed = blockActionsSchema.safeParse(json);
  if (!parsed.success) {
    throw new AppError("INVALID_INPUT", {
      message: "not a Slack interaction payload",
      userMessage: "The body must be a form with a JSON `payload` field.",
      fieldErrors: { payload: ["Not a Slack interaction payload."] },
    });
  }
  return parsed.data;
}

/** The reply to the click (null: nothing to answer, e.g. the Open button, which only opens a URL). */
export async function handleSlackInteraction(
  deps: SlackInteractionDeps,
  payload: ReturnType<typeof parseInteractionBody>,
): Promise<SlackReply | null> {
  const action = payload.actions[0];
  if (payload.type !== "block_actions" || !action) return null;
  if (action.action_id !== SLACK_ACTIONS.approve && action.action_id !== SLACK_ACTIONS.reject) return null;
  const value = actionValueSchema.safeParse(tryParseJson(action.value));
  if (!value.success) return ephemeral("This button does not name a Tether packet.");

  const email = await slackUserEmail(deps.settings, payload.user.id);
  const person = email
    ? await deps.db.user.findUnique({ where: { email }, select: { email: true, disabledAt: true } })
    : null;
  if (!person || person.disabledAt)
    return ephemeral(
      "Tether does not know you: your Slack email is not an active person of this Tether, so you cannot decide here.",
    );

  // One Slack app serves the instance: the button's packet is found in whichever workspace holds it, not in the one
  // the request would fall back to, and decided in its own.
  const packet = await asSystem(() => deps.getPacket(value.data.packetId));
  if (!packet) return ephemeral("That decision packet no longer exists.");
  if (packet.digest !== value.data.digest)
    return ephemeral("The proposed action changed since this message was sent; open the packet in the console.");
  const isApprove = action.action_id === SLACK_ACTIONS.approve;
  const input = isApprove
    ? { decision: "approve" }
    : { decision: "reject", reason: `Rejected in Slack by ${person.email}.` };
  try {
    const decided = await inWorkspace(packet.workspaceId, () =>
      deps.decide({
        packetId: packet.id,
        reviewer: person.email,
        input,
        via: `slack:${payload.user.id}`,
        workspaceId: packet.workspaceId,
      }),
    );
    if (decided.status === "PENDING") {
      return ephemeral(
        `Your approval is recorded (${decided.approvers.length} of ${decided.requiredApprovals}); another approver must still decide.`,
      );
    }
    return {
      response_type: "in_channel",
      replace_original: true,
      text: `*${isApprove ? "Approved" : "Rejected"}* by ${person.email}: ${slackEscape(packet.content.impact || packet.tool)}`,
    };
  } catch (error) {
    if (isAppError(error)) return ephemeral(error.userMessage);
    throw error;
  }
}

/** Posts the reply to the interaction's response_url (Slack ignores the HTTP answer's body for block actions). */
export async function sendSlackReply(responseUrl: string | undefined, reply: SlackReply): Promise<void> {
  if (!responseUrl) return;
  try {
    const res = await fetch(responseUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(reply),
      signal: AbortSignal.timeout(5_000),
    });
    await res.body?.cancel().catch(() => {});
  } catch {
    // The decision (if any) stands; the message just keeps its buttons, which then answer "already decided".
  }
}

const slackEscape = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
