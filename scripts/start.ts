// `npm start` (after `npm run setup && next build`): serves the built console with `next start` on PORT
// (default 3000). In demo mode (lib/auth/mode.ts: the demo accounts share a published password) it
// listens on 127.0.0.1 only, and says so, unless HOSTNAME names the address; HOSTNAME is passed on in
// every mode (`next start` itself ignores it).
import { spawn } from "node:child_process";
import { constants } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { config as loadEnvFile } from "dotenv";
import { queuedRunCapFromEnv } from "../lib/api/queued-runs.ts";
import { rateLimitFromEnv } from "../lib/api/rate-limit.ts";
import { isSandboxEnabled, listenHostname } from "../lib/auth/mode.ts";
import { trustedProxyHops } from "../lib/auth/trust-proxy.ts";
import { internalSandboxKey } from "../lib/sandbox/internal-key.ts";
import { webhookConfigFromEnv } from "../lib/webhooks/config.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// The env files the app reads (variables already set win), so demo mode is decided as the server decides it.
loadEnvFile({ path: [path.join(root, ".env.local"), path.join(root, ".env")], quiet: true });

// Settings the server would otherwise trip over at the first request: a bad one stops the start here.
try {
  isSandboxEnabled(); // TETHER_SANDBOX
  if (process.env.TETHER_SANDBOX_SECRET) internalSandboxKey(); // its length
  webhookConfigFromEnv(); // TETHER_WEBHOOK_SECRETS, TETHER_WEBHOOK_SIGNAL_TYPES, TETHER_WEBHOOK_TOLERANCE_SECONDS
  rateLimitFromEnv(); // TETHER_RATE_LIMIT
  queuedRunCapFromEnv(); // TETHER_MAX_QUEUED_RUNS
  trustedProxyHops(); // TETHER_TRUST_PROXY
} catch (error) {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const port = process.env.PORT || "3000";
const hostname = listenHostname();
if (hostname === "127.0.0.1" && !process.env.HOSTNAME?.trim()) {
  console.log(`[start] demo mode: serving on 127.0.0.1 only (http://localhost:${port}); set HOSTNAME=0.0.0.0 to serve on every interface`);
}
// The built-in tools reach this server's /api/sandbox at 127.0.0.1 by default (lib/runtime.server.ts);
// bound to one other address, that is where they must go.
if (hostname && !["0.0.0.0", "::", "127.0.0.1", "::1", "localhost"].includes(hostname) && !process.env.TETHER_SANDBOX_URL) {
  process.env.TETHER_SANDBOX_URL = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}/api/sandbox`;
}

const next = createRequire(import.meta.url).resolve("next/dist/bin/next");
const child = spawn(process.execPath, [next, "start", "-p", port, ...(hostname ? ["-H", hostname] : [])], { cwd: root, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + constants.signals[signal] : 1)));
