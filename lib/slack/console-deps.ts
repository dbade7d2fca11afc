import { getDb } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";
import type { SlackSettings } from "./config";
import type { SlackInteractionDeps } from "./handle-interaction";

/**
 * The running console's database, packets and decisions, for Slack's interactions route. One Slack app serves the
 * instance (its settings name no workspace), so a button's packet is found in whichever workspace holds it.
 */
export function slackInteractionDeps(settings: SlackSettings): SlackInteractionDeps {
  const runtime = getRuntime();
  return { db: getDb(), getPacket: (id) => runtime.store.getPacket(id, null), decide: runtime.decidePacket, settings };
}
