// TETHER_TRUST_PROXY on its own (no imports), so `npm start` can check it before the server starts.

export const TRUST_PROXY_ENV = "TETHER_TRUST_PROXY";

/**
 * TETHER_TRUST_PROXY: how many reverse proxies in front of the console add to X-Forwarded-For (unset or
 * 0: none; 1 (or true/on): one, the usual; up to 5). Anything else throws (it stops start-up).
 */
export function trustedProxyHops(env: Record<string, string | undefined> = process.env): number {
  const raw = env[TRUST_PROXY_ENV]?.trim().toLowerCase();
  if (!raw || raw === "0" || raw === "false" || raw === "off") return 0;
  if (raw === "true" || raw === "on") return 1;
  if (/^[1-5]$/.test(raw)) return Number(raw);
  throw new Error(`${TRUST_PROXY_ENV} must be the number of proxies in front of the console (0 to 5; true = 1), not "${env[TRUST_PROXY_ENV]}"`);
}
