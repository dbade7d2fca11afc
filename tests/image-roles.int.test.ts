import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { until } from "./support/until";

// The image's three roles run the way the image runs them, without Docker (no daemon here): the runtime
// stage's /app is laid out in a temporary folder from the same sources the Dockerfile copies (the standalone
// build as console/, its static files, prisma/ beside server.js, the sources and scripts for tsx), with the
// ENV the Dockerfile sets, and deploy/docker-entrypoint.sh is called with each role.
// It needs a `TETHER_STANDALONE_BUILD=1 npx next build` (output: "standalone") in this work tree and Postgres: skipped without either.
// Build first: flock /tmp/tether-heavy.lock npx next build

const root = path.resolve(__dirname, "..");
const standalone = path.join(root, ".next/standalone/server.js");
const pgUrl = inject("postgresUrl");
const PORT = 3209;

/** The runtime stage's ENV lines, as the image sets them. */
function imageEnv(app: string): Record<string, string> {
  const dockerfile = readFileSync(path.join(root, "Dockerfile"), "utf8");
  const stage = dockerfile.slice(dockerfile.lastIndexOf("FROM "));
  const block = /^ENV ([\s\S]*?)\nWORKDIR/m.exec(stage)![1];
  const env = Object.fromEntries([...block.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  return { ...env, TETHER_DATA_DIR: path.join(app, "data") }; // /app/data in the image
}

function layOutApp(): string {
  const app = path.join(mkdtempSync(path.join(tmpdir(), "tether-image-")), "app");
  mkdirSync(app, { recursive: true });
  // Hard links: the same bytes as the build, copied in no time.
  const link = (from: string, to: string) => execFileSync("cp", ["-al", path.join(root, from), path.join(app, to)]);
  for (const file of ["package.json", "tsconfig.json", "prisma.config.ts", "lib", "agents", "scripts", "prisma"])
    link(file, file);
  link(".next/standalone", "console");
  mkdirSync(path.join(app, "console/.next"), { recursive: true });
  link(".next/static", "console/.next/static");
  link("prisma", "console/prisma");
  mkdirSync(path.join(app, "deploy"));
  cpSync(path.join(root, "deploy/docker-entrypoint.sh"), path.join(app, "deploy/docker-entrypoint.sh"));
  mkdirSync(path.join(app, "data"));
  // The production node_modules of the image; here the work tree's (a superset).
  symlinkSync(path.join(root, "node_modules"), path.join(app, "node_modules"));
  return app;
}

type Role = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

function startRole(app: string, role: string, env: Record<string, string>): Role {
  const child = spawn(path.join(app, "deploy/docker-entrypoint.sh"), [role], {
    cwd: "/",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => {
      if (signal) out += `\n[killed by ${signal}]`;
      resolve(code ?? (signal ? -1 : null));
    }),
  );
  return { child, output: () => out, exited };
}

async function get(pathname: string): Promise<{ status: number; json: Record<string, unknown> } | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${PORT}${pathname}`);
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  } catch {
    return null; // not listening yet
  }
}

describe.skipIf(!existsSync(standalone) || !pgUrl)("the image's roles, laid out from the standalone build", () => {
  const database = `tether_image_${process.pid}_${Date.now()}`;
  const url = pgUrl ? Object.assign(new URL(pgUrl), { pathname: `/${database}` }).toString() : "";
  const started: Role[] = [];
  let app = "";

  afterAll(async () => {
    for (const role of started) if (role.child.exitCode === null) role.child.kill("SIGKILL");
    if (pgUrl)
      execFileSync("psql", [pgUrl, "-qc", `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`], { stdio: "pipe" });
    if (app) rmSync(path.dirname(app), { recursive: true, force: true });
  });

  it("console answers live at once and ready only after migrate; worker starts; SIGTERM drains both and they exit", async () => {
    app = layOutApp();
    const env = {
      ...imageEnv(app),
      PORT: String(PORT),
      DATABASE_URL: url,
      AUTH_SECRET: "image-roles-test-secret-0123456789abcdef",
      TETHER_SANDBOX_SECRET: "image-roles-sandbox-secret-0123456789abcdef",
      AUTH_TRUST_HOST: "true",
      TETHER_SHUTDOWN_MS: "10000",
    };
    expect(env).toMatchObject({ NODE_ENV: "production", HOSTNAME: "0.0.0.0" });

    // Before migrate: the database does not even exist yet.
    const console = startRole(app, "console", { ...env, TETHER_EMBEDDED_WORKER: "1" });
    started.push(console);
    let live: Awaited<ReturnType<typeof get>> = null;
    await until(
      "the console listens",
      async () => (live = await get("/api/health/live")) !== null || console.child.exitCode !== null,
      60_000,
    ).catch((e) => {
      throw new Error(`${e}\n${console.output()}`);
    });
    expect(live).toEqual({ status: 200, json: { ok: true } });
    const notReady = await get("/api/health/ready");
    expect(notReady?.status).toBe(503);
    expect(notReady?.json).toMatchObject({ ready: false, database: "postgres" });
    expect(String(notReady?.json.reason)).toMatch(/^(database unreachable|migrations pending|embedded worker)/);

    const migrate = startRole(app, "migrate", env);
    started.push(migrate);
    expect(await migrate.exited, migrate.output()).toBe(0);
    expect(migrate.output()).toContain("[setup] applying");

    let readiness: Awaited<ReturnType<typeof get>> = null;
    await until(
      "the console is ready",
      async () => (readiness = await get("/api/health/ready"))?.status === 200,
      60_000,
    ).catch((e) => {
      throw new Error(`${e}: ${JSON.stringify(readiness)}\n${console.output()}`);
    });
    expect(readiness!.json).toMatchObject({
      ready: true,
      database: "postgres",
      migrations: { pending: [], ahead: [] },
      worker: "running",
    });
    expect((await get("/api/health"))?.json).toEqual({ ok: true, database: "postgres" });

    const worker = startRole(app, "worker", env);
    started.push(worker);
    await until(
      "the worker starts",
      () => /worker \S+ started/.test(worker.output()) || worker.child.exitCode !== null,
      60_000,
    );
    expect(worker.child.exitCode, worker.output()).toBeNull();

    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(/worker \S+ stopped/);

    // Next's own handler closes the server and exits 143, after the console's drain.
    const signalledAt = Date.now();
    console.child.kill("SIGTERM");
    const code = await console.exited;
    expect(Date.now() - signalledAt).toBeLessThan(10_000 + 2_000);
    expect(console.output()).toContain("console draining on SIGTERM");
    expect(console.output()).toContain("console drained");
    expect(code, console.output()).toBe(143);
  }, 180_000);
});
