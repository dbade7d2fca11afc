// Every environment variable Tether reads: its name, its area and description for docs/configuration.md, its
// default, its range, and the parser whose error names it. lib/config.ts turns the parsed values into the
// `Config` the code reads (what depends on more than one variable) and is the only reader of process.env.
import { z } from "zod";
import { isRole, type Role } from "@/lib/auth/rbac";
import type { PayloadMode } from "@/lib/telemetry/redact";
import { parseWebhookSecrets, parseWebhookTolerance } from "@/lib/webhooks/config";

/** process.env, or a plain object in tests. */
export type Env = Record<string, string | undefined>;

export const CONFIG_AREAS = [
  "Database and storage",
  "Server",
  "Sign-in",
  "Worker and runs",
  "Sandbox",
  "Models",
  "Tools",
  "Notifications",
  "Webhooks",
  "Telemetry",
] as const;
export type ConfigArea = (typeof CONFIG_AREAS)[number];

/** What docs/configuration.md shows of a variable besides its description. */
export type VariableMeta = { area: ConfigArea; default?: string; secret?: boolean };

/** A variable: its raw text (undefined when unset) parsed by `parse`, whose Error message becomes the issue. */
function variable<T>(meta: VariableMeta, description: string, parse: (raw: string | undefined) => T) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      try {
        return parse(raw);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    })
    .meta(meta)
    .describe(description);
}

const text = (raw: string | undefined) => raw?.trim() || undefined;

/** A whole number from min to max, or undefined when unset. */
function wholeNumber(name: string, min: number, max: number, message?: (raw: string) => string) {
  return (raw: string | undefined) => {
    const value = text(raw);
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max)
      throw new Error(
        message ? message(value) : `${name} must be a whole number from ${min} to ${max}, got "${value}"`,
      );
    return number;
  };
}

function httpUrl(name: string) {
  return (raw: string | undefined) => {
    const value = text(raw);
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
    } catch {
      throw new Error(`${name} must be an http(s) URL, got "${value}"`);
    }
    return value.replace(/\/+$/, "");
  };
}

const positiveWorkerNumber = (name: string) =>
  wholeNumber(name, 1, Number.MAX_SAFE_INTEGER, (raw) => `${name} must be a positive whole number, got "${raw}"`);

export type RateLimit = { perSecond: number; burst: number };
export type ModelPricing = { inputPerMTok: number; outputPerMTok: number };
export type ModelSpec = { provider: "openai" | "anthropic"; modelId: string; spec: string };

export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 20, burst: 200 };
export const DEFAULT_MAX_QUEUED_RUNS = 10_000;
export const DEFAULT_SHUTDOWN_MS = 25_000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_DEPLOY_SECONDS = 5;
export const MAX_DEPLOY_SECONDS = 86_400;
export const MIN_SANDBOX_SECRET_LENGTH = 32;
export const TOOL_ENV_PREFIX = "TETHER_TOOL_";

/** The value last warned about, so a bad TETHER_MAX_BODY_BYTES is logged once, not at every parse. */
let warnedAboutBodyBytes: string | undefined;

// ---- the variables, by area (the order is the order of docs/configuration.md)

/** The constructor of one area's variables: `variable` with that area in its meta. */
const inArea =
  (area: ConfigArea) =>
  <T>(meta: Omit<VariableMeta, "area">, description: string, parse: (raw: string | undefined) => T) =>
    variable({ area, ...meta }, description, parse);

const database = inArea("Database and storage");
const server = inArea("Server");
const signIn = inArea("Sign-in");
const workerAndRuns = inArea("Worker and runs");
const sandbox = inArea("Sandbox");
const models = inArea("Models");
const tools = inArea("Tools");
const notifications = inArea("Notifications");
const webhooks = inArea("Webhooks");
const telemetry = inArea("Telemetry");

export const envSchema = z.object({
  // Database and storage
  DATABASE_URL: database(
    { default: "file:<TETHER_DATA_DIR>/tether.db", secret: true },
    "`postgres://…` or `postgresql://…` selects Postgres (the database is created if missing); anything else, or unset, is a SQLite file.",
    (raw) => raw || undefined,
  ),
  TETHER_DATA_DIR: database(
    { default: "./data" },
    "Where the embedded SQLite database (used when DATABASE_URL is unset) and the generated secrets (auth-secret, sandbox-secret) live.",
    (raw) => raw,
  ),
  TETHER_PG_POOL_SIZE: database(
    { default: "10" },
    "Connections each process opens to Postgres (1 to 1000), shared by Prisma and the runtime's hot statements (claims, commits). Raise it with TETHER_WORKER_CONCURRENCY when many runs commit at once; Postgres's max_connections bounds the sum over processes.",
    wholeNumber("TETHER_PG_POOL_SIZE", 1, 1000),
  ),

  // Server
  PORT: server(
    { default: "3000" },
    "Port of the console (`npm start`); also the default address of the sandbox and of links in notifications.",
    text,
  ),
  HOSTNAME: server(
    { default: "127.0.0.1 in demo mode, else every interface" },
    "The address `npm start` listens on. Demo mode (whose accounts share a published password) serves this machine only and says so on start; `HOSTNAME=0.0.0.0` serves every interface. Docker sets HOSTNAME to the container's name: set it to 0.0.0.0 there.",
    text,
  ),
  TETHER_PUBLIC_URL: server(
    { default: "http://127.0.0.1:$PORT" },
    "The console's address as people reach it (an http(s) URL): the link in notifications.",
    httpUrl("TETHER_PUBLIC_URL"),
  ),
  TETHER_LANGGRAPH_CORS_ORIGINS: server(
    { default: "unset (same origin only)" },
    "Comma-separated origins (or *) whose browsers may call /api/langgraph — where your Agent Inbox runs, e.g. https://dev.agentinbox.ai (docs/langgraph.md). Never with cookies: the token is the x-api-key header.",
    (raw) =>
      (raw ?? "")
        .split(",")
        .map((origin) => origin.trim().replace(/\/+$/, ""))
        .filter(Boolean),
  ),
  TETHER_TRUST_PROXY: server(
    { default: "0" },
    "How many reverse proxies in front of the console append to X-Forwarded-For (0 to 5; 1, true or on for one). The client's address (for the per-address sign-in throttle) is the entry the nearest trusted proxy wrote, never the first one, which the client chooses. Unset, it is the connection's address as `next start` passes it.",
    (raw) => {
      const value = raw?.trim().toLowerCase();
      if (!value || value === "0" || value === "false" || value === "off") return 0;
      if (value === "true" || value === "on") return 1;
      if (/^[1-5]$/.test(value)) return Number(value);
      throw new Error(
        `TETHER_TRUST_PROXY must be the number of proxies in front of the console (0 to 5; true = 1), not "${raw}"`,
      );
    },
  ),
  TETHER_MAX_BODY_BYTES: server(
    { default: String(DEFAULT_MAX_BODY_BYTES) },
    "The largest request body any route reads (/api/*, /api/sandbox/*, Auth.js's POSTs), in bytes: over it, 413 before the body is read. JSON nested deeper than 64 levels is a 400. A value that is not a positive whole number is logged once and the default used.",
    (raw) => {
      const value = text(raw);
      if (value === undefined) return DEFAULT_MAX_BODY_BYTES;
      const bytes = Number(value);
      if (/^\d+$/.test(value) && Number.isSafeInteger(bytes) && bytes > 0) return bytes;
      if (warnedAboutBodyBytes !== value) {
        warnedAboutBodyBytes = value;
        console.warn(
          `[tether] TETHER_MAX_BODY_BYTES=${JSON.stringify(value)} is not a positive whole number of bytes; using ${DEFAULT_MAX_BODY_BYTES}`,
        );
      }
      return DEFAULT_MAX_BODY_BYTES;
    },
  ),
  TETHER_RATE_LIMIT: server(
    { default: "20,200" },
    'Requests per second and burst ("<per second>,<burst>"), per API token and per person, on the API, the console\'s routes and its server actions (counted in Postgres, shared by every console replica; in memory on the embedded SQLite); past it 429 with Retry-After. "off" turns it off.',
    (raw): RateLimit | null => {
      const value = raw?.trim();
      if (!value) return DEFAULT_RATE_LIMIT;
      if (value === "off") return null;
      const match = /^(\d{1,6}(?:\.\d+)?),(\d{1,7})$/.exec(value);
      const limit = match ? { perSecond: Number(match[1]), burst: Number(match[2]) } : null;
      if (!limit || limit.perSecond <= 0 || limit.burst < 1)
        throw new Error(
          `TETHER_RATE_LIMIT must be "<requests per second>,<burst>" (e.g. 20,200) or "off", not "${value}"`,
        );
      return limit;
    },
  ),
  TETHER_MAX_QUEUED_RUNS: server(
    { default: String(DEFAULT_MAX_QUEUED_RUNS) },
    'Runs one agent may have waiting for a worker (a whole number ≥ 1); past it POST /api/runs answers 429 (a retry with a known idempotency key still gets its run). Counted under a lock every console replica on one Postgres takes. "off" turns it off.',
    (raw) => {
      const value = raw?.trim();
      if (!value) return DEFAULT_MAX_QUEUED_RUNS;
      if (value === "off") return null;
      if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
        throw new Error(`TETHER_MAX_QUEUED_RUNS must be a whole number of runs (≥ 1) or "off", not "${value}"`);
      return Number(value);
    },
  ),

  // Sign-in
  AUTH_SECRET: signIn(
    { default: "generated into <TETHER_DATA_DIR>/auth-secret", secret: true },
    "Auth.js session secret: signs and encrypts the session cookie; every console process must share it. Never committed.",
    (raw) => raw || undefined,
  ),
  AUTH_URL: signIn(
    {},
    "The console's public URL, for Auth.js (use localhost, not 127.0.0.1, locally); set, the host header is trusted. On Postgres set it or AUTH_TRUST_HOST=true.",
    text,
  ),
  AUTH_TRUST_HOST: signIn(
    { default: "true in the embedded mode or with AUTH_URL" },
    "true or 1 trusts the request's host header (Auth.js); any other value does not.",
    (raw) => (raw ? raw === "true" || raw === "1" : undefined),
  ),
  TETHER_DEMO: signIn(
    { default: "on in the embedded mode" },
    "Demo mode: the seed creates the demo accounts and the sign-in page lists them. 1/true forces it on, 0/false off.",
    (raw) => (raw === "0" || raw === "false" ? false : raw === "1" || raw === "true" ? true : undefined),
  ),
  AUTH_OIDC_ISSUER: signIn(
    {},
    "Any OpenID Connect provider for sign-in: its issuer URL (its /.well-known/openid-configuration is read); with AUTH_OIDC_ID it turns on single sign-on. Only an email the provider marks verified (email_verified: true) signs in; the redirect URI is <url>/api/auth/callback/oidc.",
    (raw) => raw || undefined,
  ),
  AUTH_OIDC_ID: signIn({}, "The OIDC client id.", (raw) => raw || undefined),
  AUTH_OIDC_SECRET: signIn({ secret: true }, "The OIDC client secret.", (raw) => raw || undefined),
  AUTH_OIDC_NAME: signIn(
    { default: "single sign-on" },
    'The sign-in button\'s label ("Sign in with …").',
    (raw) => raw || "single sign-on",
  ),
  AUTH_OIDC_DEFAULT_ROLE: signIn(
    { default: "none" },
    "The role of a person the provider knows and Tether does not: none (only people an admin added sign in), reviewer, operator or admin.",
    (raw): Role | "none" => {
      const value = raw?.trim().toLowerCase();
      if (!value) return "none";
      if (value === "none" || isRole(value)) return value;
      throw new Error(`AUTH_OIDC_DEFAULT_ROLE must be reviewer, operator, admin or none (got "${raw}")`);
    },
  ),
  TETHER_BOOTSTRAP_TOKEN: signIn(
    { secret: true },
    "At set-up, an admin API token with exactly this value (≥ 16 characters) is created once, for scripts and CI (owned by bootstrap@tether.invalid; revoked, it stays revoked).",
    (raw) => raw || undefined,
  ),

  // Worker and runs
  TETHER_EMBEDDED_WORKER: workerAndRuns(
    { default: "1" },
    "0 turns the worker inside the console process off: run workers with `npm run worker` instead.",
    (raw) => raw !== "0",
  ),
  TETHER_WORKER_CONCURRENCY: workerAndRuns(
    { default: "64" },
    "How many runs one worker (the embedded one and each `npm run worker`) drives at once. Runs wait on models, tools and people, so one process holds many; past this bound it claims no more until one parks or ends.",
    positiveWorkerNumber("TETHER_WORKER_CONCURRENCY"),
  ),
  TETHER_CARRY_READS: workerAndRuns(
    { default: "on" },
    "on: a pure read that a policy chose without asking a model (a scripted policy) shares the next step's commit instead of having its own (at most 32 of them; the first step to end 500 ms after the first commits them), each with its checkpoint; a crash makes the run redo them. off: a commit every step, for a policy that pays for a decision without reporting its `usage`.",
    (raw) => {
      const value = raw?.trim().toLowerCase() || "on";
      if (value === "on" || value === "off") return value === "on";
      throw new Error(`TETHER_CARRY_READS must be on or off, got "${raw}"`);
    },
  ),
  TETHER_LEASE_MS: workerAndRuns(
    { default: "30000" },
    "A worker's lease on a run, in ms: how long its claim lasts without a heartbeat.",
    positiveWorkerNumber("TETHER_LEASE_MS"),
  ),
  TETHER_SHUTDOWN_MS: workerAndRuns(
    { default: String(DEFAULT_SHUTDOWN_MS) },
    "On SIGTERM or SIGINT, how long (in ms) the console and `npm run worker` take to drain before they exit: they stop claiming runs, let the steps in hand commit, give those runs back (another worker takes them at once, not after TETHER_LEASE_MS), then exit. A step still running at the end keeps its lease until it expires. Keep it under the platform's grace period (Kubernetes: terminationGracePeriodSeconds, 30 s by default).",
    (raw) => wholeNumber("TETHER_SHUTDOWN_MS", 0, 3_600_000)(raw) ?? DEFAULT_SHUTDOWN_MS,
  ),
  TETHER_POLL_MS: workerAndRuns(
    { default: "1000" },
    "A worker's fallback poll, in ms: workers are woken by events (in the process at once, across processes by Postgres LISTEN/NOTIFY) and by a timer for the next run due, so the poll only matters when a notification is lost.",
    positiveWorkerNumber("TETHER_POLL_MS"),
  ),
  TETHER_RETENTION_DAYS: workerAndRuns(
    { default: "0 (forever)" },
    "Finished runs (completed, failed, cancelled) untouched for this many days are compacted: every checkpoint but the last and the trace events that are not audit are deleted; the final state, audit events, intents, packets, approvals and signals stay (lib/retention/audit-events.ts). Schedule fires whose tick is older are deleted too, except each schedule's newest 100 and those still pending. 0 or unset keeps everything. `npx tether purge` runs it once.",
    (raw) => {
      const value = raw?.trim();
      if (!value) return 0;
      const days = Number(value);
      if (!Number.isFinite(days) || days < 0)
        throw new Error(`TETHER_RETENTION_DAYS must be a number of days (0 keeps runs forever), got "${value}"`);
      return days;
    },
  ),

  // Sandbox
  TETHER_SANDBOX: sandbox(
    { default: "on in demo mode" },
    "1/true/on or 0/false/off (any case): serve the simulated world at /api/sandbox/…. Off, its paths are 404 and the deploy callback is not registered.",
    (raw) => {
      const value = raw?.trim().toLowerCase();
      if (!value) return undefined;
      if (value === "1" || value === "true" || value === "on") return true;
      if (value === "0" || value === "false" || value === "off") return false;
      throw new Error(`TETHER_SANDBOX must be 1/true/on or 0/false/off (unset: on in demo mode), got "${raw}"`);
    },
  ),
  TETHER_SANDBOX_SECRET: sandbox(
    { default: "generated into <TETHER_DATA_DIR>/sandbox-secret", secret: true },
    `The sandbox's internal credential (at least ${MIN_SANDBOX_SECRET_LENGTH} characters), which the built-in tools send as X-Tether-Sandbox-Key. Set the same value for a \`npm run worker\` on another machine.`,
    (raw) => {
      const value = raw?.trim();
      if (!value) return undefined;
      if (value.length < MIN_SANDBOX_SECRET_LENGTH)
        throw new Error(`TETHER_SANDBOX_SECRET must be at least ${MIN_SANDBOX_SECRET_LENGTH} characters`);
      return value;
    },
  ),
  TETHER_SANDBOX_URL: sandbox(
    { default: "http://127.0.0.1:$PORT/api/sandbox" },
    "Where the built-in tools reach the sandbox world (with the internal credential).",
    (raw) => raw || undefined,
  ),
  TETHER_SANDBOX_DEPLOY_SECONDS: sandbox(
    { default: String(DEFAULT_DEPLOY_SECONDS) },
    `How long a simulated deploy runs before it finishes on its own (succeeded) and calls back, in seconds (decimals allowed, 0 to ${MAX_DEPLOY_SECONDS}); off = only by hand (POST /api/sandbox/deploys/:id/complete).`,
    (raw) => {
      const value = raw?.trim().toLowerCase();
      if (!value) return DEFAULT_DEPLOY_SECONDS * 1000;
      if (value === "off") return null;
      const seconds = Number(value);
      if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_DEPLOY_SECONDS) {
        throw new Error(
          `TETHER_SANDBOX_DEPLOY_SECONDS must be a number of seconds from 0 to ${MAX_DEPLOY_SECONDS}, or off; got "${raw}"`,
        );
      }
      return Math.round(seconds * 1000);
    },
  ),

  // Models
  TETHER_MODEL: models(
    { default: "none (scripted policies)" },
    'The model the demo agents think with: "openai:<model>" (with OPENAI_API_KEY, or OPENAI_BASE_URL for any OpenAI-compatible endpoint) or "anthropic:<model>" (with ANTHROPIC_API_KEY); unset, agents keep their scripted policies.',
    (raw): ModelSpec | null => {
      const spec = text(raw);
      if (spec === undefined) return null;
      const match = /^([a-z]+):(\S+)$/.exec(spec);
      const provider = match?.[1];
      if (!match || (provider !== "openai" && provider !== "anthropic")) {
        throw new Error(
          `TETHER_MODEL must be "openai:<model>" or "anthropic:<model>" (for example openai:gpt-4.1-mini), got "${spec}"`,
        );
      }
      return { provider, modelId: match[2], spec };
    },
  ),
  TETHER_MODEL_PRICING: models(
    {},
    '"<input USD per 1M tokens>,<output USD per 1M tokens>", for the cost of each model step.',
    (raw): ModelPricing | undefined => {
      const value = raw?.trim();
      if (!value) return undefined;
      const parts = value.split(",").map((p) => p.trim());
      const [inputPerMTok, outputPerMTok] = parts.map(Number);
      if (
        parts.length !== 2 ||
        parts.some((p) => p === "") ||
        ![inputPerMTok, outputPerMTok].every((n) => Number.isFinite(n) && n >= 0)
      ) {
        throw new Error(
          `TETHER_MODEL_PRICING must be "<input USD per 1M tokens>,<output USD per 1M tokens>" (for example 0.4,1.6), got "${value}"`,
        );
      }
      return { inputPerMTok, outputPerMTok };
    },
  ),
  OPENAI_API_KEY: models({ secret: true }, "The key for TETHER_MODEL=openai:… (optional with OPENAI_BASE_URL).", text),
  OPENAI_BASE_URL: models(
    { default: "https://api.openai.com/v1" },
    "Any OpenAI-compatible endpoint (its chat-completions API is used).",
    httpUrl("OPENAI_BASE_URL"),
  ),
  ANTHROPIC_API_KEY: models({ secret: true }, "The key for TETHER_MODEL=anthropic:….", text),
  ANTHROPIC_BASE_URL: models({}, "Another address for Anthropic's API.", httpUrl("ANTHROPIC_BASE_URL")),

  // Tools
  TETHER_TOOL_ALLOWED_HOSTS: tools(
    { default: "none" },
    "The exceptions to the egress policy of registered tools (which refuses loopback, private, link-local and other reserved addresses): exact hostnames or IP literals as the tool's URL spells them, each optionally with :port (crm.internal, 10.0.0.5:8443, [::1]:3000), separated by commas. Read at every call.",
    (raw) =>
      (raw ?? "")
        .split(/[,\s]+/)
        .map((s) => s.trim())
        .filter(Boolean),
  ),
  TETHER_MCP_COMMANDS: tools(
    { default: "none (no stdio MCP server starts)" },
    'The stdio MCP servers this server may start: command lines separated by commas (e.g. "npx -y @modelcontextprotocol/server-everything, uvx mcp-server-time"; quote a word that holds spaces). A registration must give the command and its arguments word for word as one of them.',
    (raw) => raw ?? "",
  ),

  // Notifications
  TETHER_SMTP_URL: notifications(
    { secret: true },
    "smtp://user:pass@host:587 (smtps:// for TLS from the start): the server for email notifications (docs/notifications.md).",
    (raw) => {
      const url = raw?.trim();
      if (!url) return undefined;
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new Error("TETHER_SMTP_URL must be a URL such as smtp://user:pass@mail.example.com:587");
      }
      if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:")
        throw new Error("TETHER_SMTP_URL must start with smtp:// or smtps://");
      return url;
    },
  ),
  TETHER_NOTIFY_FROM: notifications(
    { default: "tether@<the console's host>" },
    "The From address of notification email.",
    text,
  ),
  TETHER_SLACK_SIGNING_SECRET: notifications(
    { secret: true },
    "The Slack app's signing secret (Basic Information → App Credentials): POST /api/slack/interactions verifies every click of a notification's Approve/Reject buttons with it; unset, that route refuses every request.",
    text,
  ),
  TETHER_SLACK_BOT_TOKEN: notifications(
    { secret: true },
    "A Slack bot token (xoxb-…) with users:read and users:read.email, to learn the email of the person who clicked (users.info) and decide as that Tether person.",
    text,
  ),
  TETHER_SLACK_API_URL: notifications(
    { default: "https://slack.com/api" },
    "Slack's Web API base (tests point it at a fake).",
    httpUrl("TETHER_SLACK_API_URL"),
  ),

  // Webhooks (lib/webhooks/config.ts describes the formats)
  TETHER_WEBHOOK_SECRETS: webhooks(
    { default: "none (every webhook is a 404)", secret: true },
    "`<source>=whsec_<base64>,…`: the sources that may call POST /api/webhooks/:source, each with its Standard Webhooks secret (24–64 bytes); name a source twice while rotating its secret.",
    parseWebhookSecrets,
  ),
  TETHER_WEBHOOK_SIGNAL_TYPES: webhooks(
    { default: "none" },
    "`<source>=<type>|<type>…,…` (e.g. `deploys=deploy.finished|deploy.failed`), or `<source>=*` for any type: the signal types each source may deliver; another type is a 403 and writes nothing. A source without an entry delivers nothing; a name TETHER_WEBHOOK_SECRETS lacks stops start-up.",
    (raw) => raw,
  ),
  TETHER_WEBHOOK_TOLERANCE_SECONDS: webhooks(
    { default: "300" },
    "How far a webhook's timestamp may be from this server's clock, either way (1 to 86400 seconds).",
    parseWebhookTolerance,
  ),

  // Telemetry (the OpenTelemetry exporter also reads its standard variables itself: docs/observability.md)
  OTEL_EXPORTER_OTLP_ENDPOINT: telemetry(
    {},
    "An OTLP/HTTP (JSON) collector: set, each run is also exported as one OpenTelemetry trace, also across a crash and a takeover (docs/observability.md).",
    text,
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: telemetry(
    {},
    "The collector's traces endpoint (instead of OTEL_EXPORTER_OTLP_ENDPOINT).",
    text,
  ),
  OTEL_SDK_DISABLED: telemetry(
    { default: "false" },
    "true turns trace export off.",
    (raw) => raw?.trim().toLowerCase() === "true",
  ),
  OTEL_TRACES_EXPORTER: telemetry({ default: "otlp" }, "none turns trace export off.", (raw) =>
    (raw ?? "").split(",").some((e) => e.trim().toLowerCase() === "none"),
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: telemetry(
    { default: "http/json" },
    "Only http/json is spoken; another value is ignored with a warning.",
    text,
  ),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: telemetry(
    { default: "http/json" },
    "As OTEL_EXPORTER_OTLP_PROTOCOL, for traces (wins over it).",
    text,
  ),
  TETHER_OTEL_TOOL_PAYLOADS: telemetry(
    { default: "shape" },
    'What of a tool\'s arguments and results a span carries: "shape" (keys and types only) or "values" (redacted).',
    (raw): PayloadMode => {
      const value = raw?.trim().toLowerCase() || "shape";
      if (value !== "shape" && value !== "values")
        throw new Error(`TETHER_OTEL_TOOL_PAYLOADS must be "shape" or "values", got "${value}"`);
      return value;
    },
  ),
  TETHER_OTEL_REDACT_KEYS: telemetry({}, 'More key names to blank in "values" mode, separated by commas.', (raw) =>
    (raw ?? "")
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean),
  ),
});

export type EnvVariable = keyof typeof envSchema.shape;
export const ENV_VARIABLES = Object.keys(envSchema.shape) as EnvVariable[];
