// Every environment variable Tether reads, parsed in one place: the variables themselves are in
// config-variables.ts (docs/configuration.md is generated from them: `npm run docs:config`), what the code reads of
// them is derived here. Outside tests, scripts, bench/, e2e/ and the tools' own config files,
// this is the only module that reads process.env (tests/config-env-reads.test.ts keeps it so).
//
// loadConfig(env) parses a plain object: every variable at once, with its default, its range and an
// error that names it (a ConfigError listing each bad variable). Functions that depend on the
// configuration take a `Config` (default getConfig()), so a test passes loadConfig({ ... }) of its own.
//
// getConfig() is this process's configuration, read at call time rather than at import:
//   - tests, the seed and scripts/start.ts change process.env in place while the process runs, so the
//     object's identity says nothing; getConfig compares the raw values of the variables below with the
//     ones it parsed last (about sixty property reads, far cheaper than parsing) and parses again only
//     when one changed. No reset is needed: changing a variable is the reset.
//   - nothing here is inlined by Next: no NEXT_PUBLIC_* variable and no NODE_ENV is read, so the module is
//     server-side only (client components never import it; they get values as props).
//   - Next 16's proxy.ts runs on the Node.js runtime (proxy does not support the edge runtime), and reaches
//     this module through lib/auth/config.ts: node:path, zod and the pure parsers imported below are fine there.
//   - a bad value throws at every call (like the per-variable functions this replaced), never caches.
import path from "node:path";
import { z } from "zod";
import { escapeRegExp, redactedKeys, type Redaction } from "@/lib/telemetry/redact";
import { parseWebhookSignalTypes, type WebhookConfig } from "@/lib/webhooks/config";

import { ENV_VARIABLES, envSchema, TOOL_ENV_PREFIX, type Env, type EnvVariable } from "./config-variables";

export * from "./config-variables";

// ---- the configuration the code reads

export type Config = ReturnType<typeof deriveConfig>;

const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url);

function deriveConfig(v: z.output<typeof envSchema>, ctx: z.RefinementCtx) {
  const dataDir = path.resolve(/*turbopackIgnore: true*/ v.TETHER_DATA_DIR ?? "./data");
  // The embedded default: no DATABASE_URL, or a SQLite one.
  const isEmbedded = !isPostgresUrl(v.DATABASE_URL ?? "");
  const isDemoMode = v.TETHER_DEMO ?? isEmbedded;
  const port = v.PORT ?? "3000";
  const publicUrl = (v.TETHER_PUBLIC_URL || `http://127.0.0.1:${port}`).replace(/\/+$/, "");
  const issue = (variable: EnvVariable, message: string) => ctx.addIssue({ code: "custom", path: [variable], message });

  if (v.TETHER_MODEL?.provider === "openai" && !v.OPENAI_API_KEY && !v.OPENAI_BASE_URL) {
    // A self-hosted OpenAI-compatible endpoint may not need a key; api.openai.com always does.
    issue(
      "TETHER_MODEL",
      `TETHER_MODEL=${v.TETHER_MODEL.spec} needs OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible endpoint that needs no key)`,
    );
  }
  if (v.TETHER_MODEL?.provider === "anthropic" && !v.ANTHROPIC_API_KEY)
    issue("TETHER_MODEL", `TETHER_MODEL=${v.TETHER_MODEL.spec} needs ANTHROPIC_API_KEY`);

  let signalTypes: WebhookConfig["signalTypes"] = new Map();
  try {
    signalTypes = parseWebhookSignalTypes(v.TETHER_WEBHOOK_SIGNAL_TYPES, v.TETHER_WEBHOOK_SECRETS);
  } catch (error) {
    issue("TETHER_WEBHOOK_SIGNAL_TYPES", (error as Error).message);
  }

  return {
    dataDir,
    database: {
      /** DATABASE_URL, else the embedded SQLite file in the data directory. */
      url: v.DATABASE_URL || `file:${path.join(v.TETHER_DATA_DIR ?? "./data", "tether.db")}`,
      isEmbedded,
      poolSize: v.TETHER_PG_POOL_SIZE ?? 10,
    },
    server: {
      port,
      /** HOSTNAME as set (scripts/start.ts passes it on). */
      hostname: v.HOSTNAME,
      /** Where `npm start` listens: HOSTNAME, else 127.0.0.1 in demo mode, else undefined (every interface). */
      listenHostname: v.HOSTNAME ?? (isDemoMode ? "127.0.0.1" : undefined),
      publicUrl,
      trustedProxyHops: v.TETHER_TRUST_PROXY,
      maxBodyBytes: v.TETHER_MAX_BODY_BYTES,
      rateLimit: v.TETHER_RATE_LIMIT,
      maxQueuedRuns: v.TETHER_MAX_QUEUED_RUNS,
      /** Origins whose browsers may call /api/langgraph ("*" for any). */
      langGraphCorsOrigins: v.TETHER_LANGGRAPH_CORS_ORIGINS,
    },
    auth: {
      isDemoMode,
      secret: v.AUTH_SECRET,
      /** AUTH_TRUST_HOST wins; unset, trusted in the embedded mode (one process on your machine) and with AUTH_URL. */
      trustHost: v.AUTH_TRUST_HOST ?? (isEmbedded || !!v.AUTH_URL),
      oidc:
        v.AUTH_OIDC_ISSUER && v.AUTH_OIDC_ID
          ? {
              issuer: v.AUTH_OIDC_ISSUER,
              clientId: v.AUTH_OIDC_ID,
              clientSecret: v.AUTH_OIDC_SECRET,
              name: v.AUTH_OIDC_NAME,
            }
          : null,
      oidcDefaultRole: v.AUTH_OIDC_DEFAULT_ROLE,
      bootstrapToken: v.TETHER_BOOTSTRAP_TOKEN,
    },
    worker: {
      isEmbedded: v.TETHER_EMBEDDED_WORKER,
      options: { concurrency: v.TETHER_WORKER_CONCURRENCY, leaseMs: v.TETHER_LEASE_MS, pollMs: v.TETHER_POLL_MS },
      /** TETHER_CARRY_READS: free pure reads share the next commit (RuntimeOptions.carryReads). */
      carryReads: v.TETHER_CARRY_READS,
      /** TETHER_SHUTDOWN_MS: the drain's budget on SIGTERM (lib/lifecycle/shutdown.ts). */
      shutdownMs: v.TETHER_SHUTDOWN_MS,
      retentionDays: v.TETHER_RETENTION_DAYS,
    },
    sandbox: {
      /** TETHER_SANDBOX, else demo mode. */
      isEnabled: v.TETHER_SANDBOX ?? isDemoMode,
      secret: v.TETHER_SANDBOX_SECRET,
      url: v.TETHER_SANDBOX_URL ?? `http://127.0.0.1:${v.PORT ?? 3000}/api/sandbox`,
      deployFinishMs: v.TETHER_SANDBOX_DEPLOY_SECONDS,
    },
    model: {
      spec: v.TETHER_MODEL,
      pricing: v.TETHER_MODEL_PRICING,
      openai: { apiKey: v.OPENAI_API_KEY, baseURL: v.OPENAI_BASE_URL },
      anthropic: { apiKey: v.ANTHROPIC_API_KEY, baseURL: v.ANTHROPIC_BASE_URL },
    },
    tools: { allowedHosts: v.TETHER_TOOL_ALLOWED_HOSTS, mcpCommands: v.TETHER_MCP_COMMANDS },
    notifications: { smtpUrl: v.TETHER_SMTP_URL, from: v.TETHER_NOTIFY_FROM },
    slack: {
      signingSecret: v.TETHER_SLACK_SIGNING_SECRET ?? null,
      botToken: v.TETHER_SLACK_BOT_TOKEN ?? null,
      apiUrl: v.TETHER_SLACK_API_URL ?? "https://slack.com/api",
    },
    webhooks: {
      sources: v.TETHER_WEBHOOK_SECRETS,
      signalTypes,
      toleranceSeconds: v.TETHER_WEBHOOK_TOLERANCE_SECONDS,
    } satisfies WebhookConfig,
    telemetry: {
      /** OTLP is configured (an endpoint is set) and not switched off (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none). */
      isEnabled:
        !v.OTEL_SDK_DISABLED &&
        !v.OTEL_TRACES_EXPORTER &&
        Boolean(v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || v.OTEL_EXPORTER_OTLP_ENDPOINT),
      protocol: v.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? v.OTEL_EXPORTER_OTLP_PROTOCOL,
      redaction: {
        mode: v.TETHER_OTEL_TOOL_PAYLOADS,
        keys: redactedKeys(v.TETHER_OTEL_REDACT_KEYS.map(escapeRegExp)),
      } satisfies Redaction,
    },
  };
}

const configSchema = envSchema.transform(deriveConfig);

/** One bad variable: its name and what it must be. */
export type ConfigIssue = { variable: string; message: string };

/** Thrown by loadConfig: each bad variable, one per line (each message starts with the variable's name). */
export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map((i) => i.message).join("\n"));
    this.name = "ConfigError";
  }
}

/** Parses every variable of `env` (a plain object in tests); throws a ConfigError naming each bad one. */
export function loadConfig(env: Env = process.env): Config {
  const result = configSchema.safeParse(pick(env));
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? ""), message: issue.message })),
  );
}

/** Only the variables the schema knows, as strings (a test's object may hold anything). */
function pick(env: Env): Record<string, string | undefined> {
  return Object.fromEntries(ENV_VARIABLES.map((name) => [name, env[name]]));
}

let parsed: { key: string; config: Config } | undefined;

/** This process's configuration, parsed again only when a variable changed (see the comment at the top). */
export function getConfig(): Config {
  const key = ENV_VARIABLES.map((name) => process.env[name] ?? "\u0000").join("\u0001");
  if (parsed?.key !== key) parsed = { key, config: loadConfig(process.env) };
  return parsed.config;
}

/** The TETHER_TOOL_* variables a tool's settings may reference ({{env.TETHER_TOOL_X}}), at call time. */
export function toolEnvironment(env: Env = process.env): Env {
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith(TOOL_ENV_PREFIX)));
}

/** This process's whole environment with some variables replaced, for a child process of ours. */
export function childProcessEnvironment(overrides: Env = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}
