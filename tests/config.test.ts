import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CONFIG_AREAS,
  ConfigError,
  ENV_VARIABLES,
  envSchema,
  getConfig,
  loadConfig,
  toolEnvironment,
  type VariableMeta,
} from "../lib/config";

// lib/config.ts: every variable parsed at once, with defaults, ranges and errors that name the variable.

/** The ConfigError loadConfig throws for env, or a failure when it does not throw. */
function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("an empty environment is the embedded demo with every default", () => {
    const config = loadConfig({});
    expect(config.dataDir).toBe(path.resolve("./data"));
    expect(config.database).toEqual({
      url: `file:${path.join("./data", "tether.db")}`,
      isEmbedded: true,
      poolSize: 10,
    });
    expect(config.server).toMatchObject({
      port: "3000",
      listenHostname: "127.0.0.1",
      publicUrl: "http://127.0.0.1:3000",
      trustedProxyHops: 0,
      maxBodyBytes: 1024 * 1024,
      rateLimit: { perSecond: 20, burst: 200 },
      maxQueuedRuns: 10_000,
    });
    expect(config.auth).toMatchObject({
      isDemoMode: true,
      trustHost: true,
      oidc: null,
      oidcDefaultRole: "none",
      secret: undefined,
    });
    expect(config.sandbox).toEqual({
      isEnabled: true,
      secret: undefined,
      url: "http://127.0.0.1:3000/api/sandbox",
      deployFinishMs: 5000,
    });
    expect(config.worker).toEqual({
      isEmbedded: true,
      options: { concurrency: undefined, leaseMs: undefined, pollMs: undefined },
      carryReads: true,
      shutdownMs: 25_000,
      retentionDays: 0,
    });
    expect(config.model).toMatchObject({ spec: null, pricing: undefined });
    expect(config.tools).toEqual({ allowedHosts: [], mcpCommands: "" });
    expect(config.notifications).toEqual({ smtpUrl: undefined, from: undefined });
    expect(config.webhooks).toMatchObject({ toleranceSeconds: 300 });
    expect(config.webhooks.sources.size).toBe(0);
    expect(config.telemetry).toMatchObject({ isEnabled: false, redaction: { mode: "shape" } });
  });

  it("derives what depends on more than one variable: Postgres turns demo mode, the sandbox and the open host header off", () => {
    const pg = loadConfig({
      DATABASE_URL: "postgresql://db/tether",
      PORT: "4000",
      TETHER_PUBLIC_URL: "https://tether.example.com/",
      TETHER_SMTP_URL: "smtp://mail:25",
    });
    expect(pg.database.isEmbedded).toBe(false);
    expect(pg.auth).toMatchObject({ isDemoMode: false, trustHost: false });
    expect(pg.sandbox).toMatchObject({ isEnabled: false, url: "http://127.0.0.1:4000/api/sandbox" });
    expect(pg.server).toMatchObject({ listenHostname: undefined, publicUrl: "https://tether.example.com" });
    expect(pg.notifications).toEqual({ smtpUrl: "smtp://mail:25", from: undefined });
    expect(loadConfig({ TETHER_DATA_DIR: "/srv/tether" }).database.url).toBe("file:/srv/tether/tether.db");
  });

  it("TETHER_CARRY_READS: on unless set to off; anything else is refused", () => {
    expect(loadConfig({ TETHER_CARRY_READS: "off" }).worker.carryReads).toBe(false);
    expect(loadConfig({ TETHER_CARRY_READS: " OFF " }).worker.carryReads).toBe(false);
    expect(loadConfig({ TETHER_CARRY_READS: "on" }).worker.carryReads).toBe(true);
    expect(loadConfig({ TETHER_CARRY_READS: "" }).worker.carryReads).toBe(true);
    expect(configErrorOf({ TETHER_CARRY_READS: "no" }).issues).toEqual([
      { variable: "TETHER_CARRY_READS", message: 'TETHER_CARRY_READS must be on or off, got "no"' },
    ]);
  });

  it("TETHER_SHUTDOWN_MS: the drain's budget in ms, 25 s unset, a whole number from 0 to an hour", () => {
    expect(loadConfig({ TETHER_SHUTDOWN_MS: "5000" }).worker.shutdownMs).toBe(5000);
    expect(loadConfig({ TETHER_SHUTDOWN_MS: "0" }).worker.shutdownMs).toBe(0);
    expect(configErrorOf({ TETHER_SHUTDOWN_MS: "soon" }).issues).toEqual([
      {
        variable: "TETHER_SHUTDOWN_MS",
        message: 'TETHER_SHUTDOWN_MS must be a whole number from 0 to 3600000, got "soon"',
      },
    ]);
    expect(configErrorOf({ TETHER_SHUTDOWN_MS: "-1" }).issues[0].variable).toBe("TETHER_SHUTDOWN_MS");
  });

  it("names every bad variable at once, each with what it must be (the wording the docs and start-up show)", () => {
    const error = configErrorOf({
      TETHER_RATE_LIMIT: "fast",
      TETHER_PG_POOL_SIZE: "0",
      TETHER_SANDBOX: "maybe",
      UNRELATED: "ignored",
    });
    expect(error.issues).toEqual([
      {
        variable: "TETHER_PG_POOL_SIZE",
        message: 'TETHER_PG_POOL_SIZE must be a whole number from 1 to 1000, got "0"',
      },
      {
        variable: "TETHER_RATE_LIMIT",
        message: 'TETHER_RATE_LIMIT must be "<requests per second>,<burst>" (e.g. 20,200) or "off", not "fast"',
      },
      {
        variable: "TETHER_SANDBOX",
        message: 'TETHER_SANDBOX must be 1/true/on or 0/false/off (unset: on in demo mode), got "maybe"',
      },
    ]);
    expect(error.message.split("\n")).toHaveLength(3);
  });

  it("checks settings that need each other: a model without its key, a signal-type list naming an unknown source", () => {
    expect(configErrorOf({ TETHER_MODEL: "anthropic:claude-x" }).issues).toEqual([
      { variable: "TETHER_MODEL", message: "TETHER_MODEL=anthropic:claude-x needs ANTHROPIC_API_KEY" },
    ]);
    expect(loadConfig({ TETHER_MODEL: "openai:m", OPENAI_BASE_URL: "http://127.0.0.1:1234/v1/" }).model).toMatchObject({
      spec: { provider: "openai", modelId: "m" },
      openai: { baseURL: "http://127.0.0.1:1234/v1" },
    });
    const secret = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;
    expect(
      configErrorOf({ TETHER_WEBHOOK_SECRETS: `deploys=${secret}`, TETHER_WEBHOOK_SIGNAL_TYPES: "github=*" }).issues,
    ).toEqual([
      {
        variable: "TETHER_WEBHOOK_SIGNAL_TYPES",
        message: 'TETHER_WEBHOOK_SIGNAL_TYPES entry 1: no source "github" in TETHER_WEBHOOK_SECRETS',
      },
    ]);
  });

  it("a malformed webhook secret is named by its entry, and the message never holds the secret", () => {
    const error = configErrorOf({ TETHER_WEBHOOK_SECRETS: "deploys=whsec_c2VjcmV0LXZhbHVl" });
    expect(error.issues[0]).toMatchObject({ variable: "TETHER_WEBHOOK_SECRETS" });
    expect(error.message).toMatch(/^TETHER_WEBHOOK_SECRETS entry 1 \(deploys\)/);
    expect(error.message).not.toContain("c2VjcmV0LXZhbHVl");
  });

  it("every variable has a description and an area for docs/configuration.md", () => {
    expect(ENV_VARIABLES).toEqual(
      expect.arrayContaining([
        "DATABASE_URL",
        "AUTH_SECRET",
        "TETHER_SANDBOX",
        "TETHER_MODEL",
        "TETHER_WEBHOOK_SECRETS",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
      ]),
    );
    for (const name of ENV_VARIABLES) {
      const schema = envSchema.shape[name];
      expect(schema.description, name).toMatch(/\S{3}/);
      expect(CONFIG_AREAS, name).toContain((schema.meta() as VariableMeta).area);
    }
  });
});

describe("getConfig", () => {
  const saved = {
    TETHER_RATE_LIMIT: process.env.TETHER_RATE_LIMIT,
    TETHER_TOOL_CRM_TOKEN: process.env.TETHER_TOOL_CRM_TOKEN,
  };
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("follows process.env changed in place, and parses again only when a variable changed", () => {
    process.env.TETHER_RATE_LIMIT = "5,10";
    const first = getConfig();
    expect(first.server.rateLimit).toEqual({ perSecond: 5, burst: 10 });
    expect(getConfig()).toBe(first); // nothing changed: the same object
    process.env.TETHER_RATE_LIMIT = "off";
    expect(getConfig().server.rateLimit).toBeNull();
    process.env.TETHER_RATE_LIMIT = "nonsense";
    expect(() => getConfig()).toThrow(/TETHER_RATE_LIMIT must be/); // at every call, never cached
    expect(() => getConfig()).toThrow(ConfigError);
  });

  it("tool settings read only the TETHER_TOOL_* variables, at call time", () => {
    process.env.TETHER_TOOL_CRM_TOKEN = "crm-1";
    expect(toolEnvironment()).toMatchObject({ TETHER_TOOL_CRM_TOKEN: "crm-1" });
    expect(Object.keys(toolEnvironment()).every((name) => name.startsWith("TETHER_TOOL_"))).toBe(true);
    expect(toolEnvironment({ TETHER_TOOL_X: "1", AUTH_SECRET: "no" })).toEqual({ TETHER_TOOL_X: "1" });
  });
});

describe("npm start", () => {
  it("checks every variable before the server starts: a bad one exits 1, naming each variable and what it must be", () => {
    const env = {
      ...process.env,
      TETHER_RATE_LIMIT: "fast",
      TETHER_OTEL_TOOL_PAYLOADS: "everything",
      TETHER_PG_POOL_SIZE: "0",
    };
    const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      '[start] TETHER_PG_POOL_SIZE must be a whole number from 1 to 1000, got "0"',
      '[start] TETHER_RATE_LIMIT must be "<requests per second>,<burst>" (e.g. 20,200) or "off", not "fast"',
      '[start] TETHER_OTEL_TOOL_PAYLOADS must be "shape" or "values", got "everything"',
    ]);
    expect(result.stdout).not.toContain("next");
  }, 90_000);
});
