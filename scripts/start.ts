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
import { ConfigError, loadConfig, type Config } from "../lib/config.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// The env files the app reads (variables already set win), so demo mode is decided as the server decides it.
loadEnvFile({ path: [path.join(root, ".env.local"), path.join(root, ".env")], quiet: true });

// Every setting (lib/config.ts, docs/configuration.md), checked before the server starts: a bad one stops
// the start here, with the variable's name and what it must be, rather than at the first request.
let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  // Each message starts with the variable's name; a cross-variable one is prefixed with the variable it is about.
  for (const { variable, message } of error.issues)
    console.error(`[start] ${message.startsWith(variable) ? message : `${variable}: ${message}`}`);
  process.exit(1);
}

const port = config.server.port;
const hostname = config.server.listenHostname;
if (hostname === "127.0.0.1" && !config.server.hostname) {
  console.log(
    `[start] demo mode: serving on 127.0.0.1 only (http://localhost:${port}); set HOSTNAME=0.0.0.0 to serve on every interface`,
  );
}
// The built-in tools reach this server's /api/sandbox at 127.0.0.1 by default (lib/runtime.server.ts);
// bound to one other address, that is where they must go.
if (
  hostname &&
  !["0.0.0.0", "::", "127.0.0.1", "::1", "localhost"].includes(hostname) &&
  !process.env.TETHER_SANDBOX_URL
) {
  process.env.TETHER_SANDBOX_URL = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}/api/sandbox`;
}

const next = createRequire(import.meta.url).resolve("next/dist/bin/next");
const child = spawn(process.execPath, [next, "start", "-p", port, ...(hostname ? ["-H", hostname] : [])], {
  cwd: root,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + constants.signals[signal] : 1)));
