// Slack interactivity (docs/notifications.md): the buttons of Tether's Slack notifications post to
// POST /api/slack/interactions, which needs
//   TETHER_SLACK_SIGNING_SECRET  the Slack app's signing secret (Basic Information → App Credentials);
//                                without it the route refuses every request
//   TETHER_SLACK_BOT_TOKEN       a bot token (xoxb-…) with users:read and users:read.email, to learn the
//                                clicking person's email (users.info)
//   TETHER_SLACK_API_URL         Slack's Web API base; default https://slack.com/api (tests point it at a fake)
import type { Env } from "@/lib/auth/mode";

export type SlackSettings = { signingSecret: string | null; botToken: string | null; apiUrl: string };

export function slackSettingsFromEnv(env: Env = process.env): SlackSettings {
  return {
    signingSecret: env.TETHER_SLACK_SIGNING_SECRET?.trim() || null,
    botToken: env.TETHER_SLACK_BOT_TOKEN?.trim() || null,
    apiUrl: (env.TETHER_SLACK_API_URL?.trim() || "https://slack.com/api").replace(/\/+$/, ""),
  };
}

/** The action ids of a notification's buttons (lib/notifications/send.ts), as the interactions route reads them back. */
export const SLACK_ACTIONS = { approve: "tether.approve", reject: "tether.reject", open: "tether.open" } as const;
