import { getDb } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";
import type { SlackSettings } from "./config";
import type { SlackInteractionDeps } from "./handle-interaction";

/** The running console's database, packets and decisions, for Slack's interactions route. */
export function slackInteractionDeps(settings: SlackSettings): SlackInteractionDeps {
  const runtime = getRuntime();
  return { db: getDb(), getPacket: (id) => runtime.store.getPacket(id), decide: runtime.decidePacket, settings };
}
