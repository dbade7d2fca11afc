// Slack interactivity (docs/notifications.md): the buttons of Tether's Slack notifications post to
// POST /api/slack/interactions, which needs TETHER_SLACK_SIGNING_SECRET (without it the route refuses every
// request) and TETHER_SLACK_BOT_TOKEN (to learn the clicking person's email); lib/config.ts parses them.
import { getConfig, type Config } from "@/lib/config";

export type SlackSettings = Config["slack"];

export function slackSettings(config: Config = getConfig()): SlackSettings {
  return config.slack;
}

/** The action ids of a notification's buttons (lib/notifications/send.ts), as the interactions route reads them back. */
export const SLACK_ACTIONS = { approve: "tether.approve", reject: "tether.reject", open: "tether.open" } as const;
