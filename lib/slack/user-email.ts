// The email of the Slack person who clicked, from Slack's users.info (bot token with users:read.email),
// cached briefly: a burst of clicks costs one lookup, and a changed address is seen within minutes. Only
// found addresses are cached, so a person added to Slack or Tether meanwhile is not refused for long.
import { z } from "zod";
import type { SlackSettings } from "./config";

const CACHE_MS = 5 * 60_000;
const cache = new Map<string, { email: string; at: number }>();

const usersInfoSchema = z.object({
  ok: z.boolean(),
  user: z.object({ profile: z.object({ email: z.string().optional() }).optional() }).optional(),
});

/** The person's email, or null when Slack does not know it (unknown user, no scope, Slack unreachable). */
export async function slackUserEmail(
  settings: Pick<SlackSettings, "apiUrl" | "botToken">,
  userId: string,
  now = Date.now(),
): Promise<string | null> {
  if (!settings.botToken) return null;
  const key = `${settings.apiUrl} ${userId}`;
  const hit = cache.get(key);
  if (hit && now - hit.at < CACHE_MS) return hit.email;
  try {
    const res = await fetch(`${settings.apiUrl}/users.info?user=${encodeURIComponent(userId)}`, {
      headers: { authorization: `Bearer ${settings.botToken}` },
      signal: AbortSignal.timeout(5_000),
    });
    const body = usersInfoSchema.safeParse(await res.json());
    const email = body.success && body.data.ok ? body.data.user?.profile?.email?.trim().toLowerCase() : undefined;
    if (!email) return null;
    cache.set(key, { email, at: now });
    return email;
  } catch {
    return null;
  }
}
