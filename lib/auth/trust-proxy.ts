// TETHER_TRUST_PROXY: how many reverse proxies in front of the console add to X-Forwarded-For (parsed in
// lib/config.ts: unset or 0: none; 1 (or true/on): one, the usual; up to 5; anything else stops start-up).
import { getConfig, type Config } from "@/lib/config";

export const TRUST_PROXY_ENV = "TETHER_TRUST_PROXY";

export function trustedProxyHops(config: Config = getConfig()): number {
  return config.server.trustedProxyHops;
}
