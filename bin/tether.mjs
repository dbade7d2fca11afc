#!/usr/bin/env node
// The Tether CLI: a thin client of the HTTP API (TETHER_URL, TETHER_TOKEN), plus local commands that
// run against the configured database: `tether worker`, `tether create-admin`, `tether purge`, `tether export`
// and `tether import`.
//   tether run <agent> [--input file.json | --input-json '{…}'] [--key idempotency-key]
//   tether runs [--status S] [--agent A]      tether show <run>      tether packets
//   tether approve <packet>    tether reject <packet> --reason "…"    tether worker
//   tether token create --name <n> --scopes <s1,s2> [--user <email>] [--expires-in-days <d>]
//   tether token list          tether token revoke <id>
//   tether create-admin --email <e> (--password <p> | --password-stdin) [--name "…"]
//   tether purge                              (compacts finished runs older than TETHER_RETENTION_DAYS)
//   tether export [--since <date>] [--run <id,…>] > runs.jsonl    (a backup of the runs; docs/backup.md)
//   tether import [<file> | -] [--json]       (a backup into this database, idempotent by id)
//   tether replay --agent <slug> [--since 7d | --runs <id,…> | --dataset <backup.jsonl>] [--limit N] [--allow <file>]
//                                            (recorded runs re-driven through this code, offline; exit 1 when any acts differently)
//   tether mcp                                (an MCP server on stdio, relaying to TETHER_URL's /api/mcp as TETHER_TOKEN)
//   tether new agent <name> [--dir agents]    (scaffolds agents/<name>/: an agent made with the SDK and its test)
//   tether gate request --tool <name> --args '{…}' [--description …] [--queue …] [--approvals N] [--expires-in 2h]
//                       [--on-expiry reject] [--key K] [--wait [seconds]]      (asks a person; docs/gates.md)
//   tether gate wait <gate> [--timeout <seconds>]      exit 0 approved/edited, 3 rejected/redirected/expired,
//                                                      4 still pending at the timeout, 2 on error
//   tether gate outcome <gate> --status happened|failed|not_done [--receipt …] [--detail …]
//   tether schedule create --name <n> --agent <a> --cron '<expr>' [--tz <IANA zone>] [--input-json '{…}' | --input file.json]
//                          [--overlap skip|queue|cancel] [--catch-up <seconds>] [--paused]      (docs/schedules.md)
//   tether schedule list       tether schedule show|pause|resume|delete <id or name>
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [command, ...rest] = process.argv.slice(2);
const flags = {};
const args = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i].startsWith("--")) flags[rest[i].slice(2)] = rest[i + 1]?.startsWith("--") ? true : (rest[++i] ?? true);
  else args.push(rest[i]);
}
const baseUrl = (process.env.TETHER_URL ?? "http://localhost:3000").replace(/\/$/, "");
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function fail(message, code = 1) {
  console.error(`tether: ${message}`);
  process.exit(code);
}

/** One API call: { status, json }, or { status: 0, cause } when no answer came. */
async function request(method, urlPath, body) {
  try {
    const res = await fetch(baseUrl + urlPath, {
      method,
      headers: {
        "content-type": "application/json",
        ...(process.env.TETHER_TOKEN ? { authorization: `Bearer ${process.env.TETHER_TOKEN}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, statusText: res.statusText, json: await res.json().catch(() => ({})) };
  } catch (error) {
    return { status: 0, cause: error.cause?.code ?? error.message };
  }
}

// The exit code of a failed API call: 1, except where a command's contract says otherwise (gate: 2).
let apiErrorExit = 1;

function failWith({ status, statusText, json, cause }) {
  if (status === 0) fail(`cannot reach ${baseUrl} (${cause}); is the console running? set TETHER_URL`, apiErrorExit);
  fail(
    `${status} ${json.error?.code ?? ""}: ${json.error?.message ?? statusText}${json.error?.fieldErrors ? `\n${JSON.stringify(json.error.fieldErrors, null, 2)}` : ""}`,
    apiErrorExit,
  );
}

async function api(method, urlPath, body) {
  const answer = await request(method, urlPath, body);
  if (answer.status < 200 || answer.status >= 300) failWith(answer);
  return answer.json;
}

const pad = (s, n) => String(s ?? "").padEnd(n);
const time = (iso) => String(iso).replace("T", " ").slice(0, 19);

/** A run's input from --input <file.json> or --input-json '{…}' ({} when neither is given). */
function inputFromFlags() {
  try {
    if (typeof flags.input === "string") return JSON.parse(readFileSync(flags.input, "utf8"));
    if (typeof flags["input-json"] === "string") return JSON.parse(flags["input-json"]);
    return {};
  } catch (error) {
    fail(`the input is not valid JSON: ${error.message}`, 2);
  }
}

const commands = {
  async run() {
    const [agent] = args;
    if (!agent) fail("usage: tether run <agent> [--input file.json | --input-json '{…}'] [--key K]", 2);
    const input = inputFromFlags();
    const run = await api("POST", "/api/runs", {
      agent,
      input,
      ...(typeof flags.key === "string" ? { idempotencyKey: flags.key } : {}),
    });
    console.log(`${run.created ? "started" : "already started"} ${run.id} (${run.status})`);
  },
  async runs() {
    const query = new URLSearchParams({
      ...(flags.status ? { status: flags.status } : {}),
      ...(flags.agent ? { agent: flags.agent } : {}),
    });
    const { runs } = await api("GET", `/api/runs?${query}`);
    if (runs.length === 0) return console.log("no runs");
    for (const r of runs)
      console.log(
        `${pad(r.id, 38)} ${pad(r.agent, 16)} ${pad(r.status, 17)} step ${pad(r.step, 4)} ${time(r.updatedAt)}`,
      );
  },
  async show() {
    const [id] = args;
    if (!id) fail("usage: tether show <run>", 2);
    const { run, recovery } = await api("GET", `/api/runs/${encodeURIComponent(id)}`);
    const { events } = await api("GET", `/api/runs/${encodeURIComponent(id)}/events`);
    console.log(`${run.id}  ${run.agent}@${run.agentVersion}  ${run.status}${run.error ? `  (${run.error})` : ""}`);
    for (const e of events) {
      const d = e.data;
      const detail = d.tool
        ? `${d.tool}${d.attempt ? ` #${d.attempt}` : ""}${d.errorClass ? ` ✘ ${d.errorClass}` : ""}${d.latencyMs !== undefined ? ` ${d.latencyMs}ms` : ""}`
        : d.to
          ? `${d.from} → ${d.to}`
          : "";
      console.log(`  ${String(e.seq).padStart(4)}  ${time(e.at)}  step ${pad(e.step, 3)} ${pad(e.type, 24)} ${detail}`);
    }
    console.log("\n  definitely happened:", recovery.definitelyHappened.map((i) => i.tool).join(", ") || "nothing");
    console.log("  may have happened:  ", recovery.mayHaveHappened.map((i) => i.tool).join(", ") || "nothing");
    for (const next of recovery.safeNext) console.log(`  safe next: ${next.description}`);
  },
  async packets() {
    const { packets } = await api("GET", "/api/packets?status=pending");
    if (packets.length === 0) return console.log("no pending packets");
    for (const p of packets) console.log(`${pad(p.id, 38)} ${pad(p.tool, 22)} ${p.content.impact}  (run ${p.runId})`);
  },
  async approve() {
    const [id] = args;
    if (!id) fail("usage: tether approve <packet>", 2);
    const { packet } = await api("POST", `/api/packets/${encodeURIComponent(id)}/decision`, { decision: "approve" });
    console.log(`${packet.id}: ${packet.status.toLowerCase()}`);
  },
  async reject() {
    const [id] = args;
    if (!id || typeof flags.reason !== "string") fail('usage: tether reject <packet> --reason "why"', 2);
    const { packet } = await api("POST", `/api/packets/${encodeURIComponent(id)}/decision`, {
      decision: "reject",
      reason: flags.reason,
    });
    console.log(`${packet.id}: ${packet.status.toLowerCase()}`);
  },
  // API tokens, over the API (an admin token): a token acts as a person, within their role.
  async token() {
    const [action, id] = args;
    const usage =
      "usage: tether token create --name <n> --scopes <s1,s2> [--user <email>] [--expires-in-days <d>] | tether token list | tether token revoke <id>";
    if (action === "create") {
      if (typeof flags.name !== "string" || typeof flags.scopes !== "string") fail(usage, 2);
      const days = flags["expires-in-days"];
      if (days !== undefined && !/^\d+$/.test(String(days))) fail("--expires-in-days takes a whole number of days", 2);
      const created = await api("POST", "/api/tokens", {
        name: flags.name,
        scopes: flags.scopes
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
        ...(typeof flags.user === "string" ? { user: flags.user } : {}),
        ...(days !== undefined ? { expiresInDays: Number(days) } : {}),
      });
      console.error(
        `created ${created.id} "${created.name}" acting as ${created.user} (${created.scopes.join(", ")})${created.expiresAt ? `, expires ${time(created.expiresAt)}` : ""}; the token is shown once:`,
      );
      console.log(created.token);
    } else if (action === "list") {
      const { tokens } = await api("GET", "/api/tokens");
      if (tokens.length === 0) return console.log("no tokens");
      for (const t of tokens) {
        const state = t.revokedAt
          ? `revoked ${time(t.revokedAt)}`
          : t.expiresAt && Date.parse(t.expiresAt) <= Date.now()
            ? `expired ${time(t.expiresAt)}`
            : t.expiresAt
              ? `active until ${time(t.expiresAt)}`
              : "active";
        console.log(
          `${pad(t.id, 38)} ${pad(t.name, 20)} ${pad(t.prefix + "…", 12)} ${pad(t.user ?? "(no owner)", 28)} ${pad(t.scopes.join(","), 40)} ${state}`,
        );
      }
    } else if (action === "revoke") {
      if (!id) fail(usage, 2);
      await api("DELETE", `/api/tokens/${encodeURIComponent(id)}`);
      console.log(`revoked ${id}`);
    } else fail(usage, 2);
  },
  // Schedules, over the API (schedules:read / schedules:write): a schedule is named by its id or its name.
  async schedule() {
    const [action, ref] = args;
    const usage =
      "usage: tether schedule create --name <n> --agent <a> --cron '<expr>' [--tz <zone>] [--input-json '{…}' | --input file.json] [--overlap skip|queue|cancel] [--catch-up <seconds>] [--paused]\n" +
      "       tether schedule list | tether schedule show|pause|resume|delete <id or name>";
    const idOf = async () => {
      if (!ref) fail(usage, 2);
      const { schedules } = await api("GET", "/api/schedules?limit=500");
      const found = schedules.find((s) => s.id === ref || s.name === ref);
      if (!found) fail(`no schedule "${ref}"`);
      return found.id;
    };
    const line = (s) =>
      `${pad(s.name, 24)} ${pad(s.agent, 16)} ${pad(`${s.cron} (${s.timeZone})`, 34)} ${pad(s.overlap, 7)} ${s.paused ? "paused" : `next ${time(s.nextFireAt)} UTC`}`;
    if (action === "create") {
      if (typeof flags.name !== "string" || typeof flags.agent !== "string" || typeof flags.cron !== "string")
        fail(usage, 2);
      if (flags["catch-up"] !== undefined && !/^\d+$/.test(String(flags["catch-up"])))
        fail("--catch-up takes a whole number of seconds", 2);
      const input = inputFromFlags();
      const created = await api("POST", "/api/schedules", {
        name: flags.name,
        agent: flags.agent,
        cron: flags.cron,
        input,
        ...(typeof flags.tz === "string" ? { timeZone: flags.tz } : {}),
        ...(typeof flags.overlap === "string" ? { overlap: flags.overlap } : {}),
        ...(flags["catch-up"] !== undefined ? { catchUpSeconds: Number(flags["catch-up"]) } : {}),
        ...(flags.paused ? { paused: true } : {}),
      });
      console.log(`created ${created.id} ${line(created)}`);
    } else if (action === "list") {
      const { schedules } = await api("GET", "/api/schedules");
      if (schedules.length === 0) return console.log("no schedules");
      for (const s of schedules)
        console.log(
          `${pad(s.id, 38)} ${line(s)}${s.lastFire ? `  last: ${s.lastFire.outcome} ${time(s.lastFire.tick)}` : ""}`,
        );
    } else if (action === "show") {
      const s = await api("GET", `/api/schedules/${encodeURIComponent(await idOf())}`);
      console.log(`${s.id} ${line(s)}`);
      for (const t of s.upcoming) console.log(`  next   ${time(t)} UTC`);
      for (const f of s.fires)
        console.log(
          `  fired  ${time(f.tick)} UTC  ${pad(f.outcome, 8)} ${f.runId ?? ""}${f.detail ? ` ${f.detail}` : ""}`,
        );
    } else if (action === "pause" || action === "resume") {
      const s = await api("PATCH", `/api/schedules/${encodeURIComponent(await idOf())}`, {
        paused: action === "pause",
      });
      console.log(
        `${action === "pause" ? "paused" : "resumed"} ${s.name}${s.paused ? "" : `, next ${time(s.nextFireAt)} UTC`}`,
      );
    } else if (action === "delete") {
      const id = await idOf();
      await api("DELETE", `/api/schedules/${encodeURIComponent(id)}`);
      console.log(`deleted ${id}`);
    } else fail(usage, 2);
  },
  // Tether as a stdio MCP server for MCP clients (docs/mcp.md): stdout carries only MCP messages.
  async mcp() {
    if (!process.env.TETHER_TOKEN)
      fail("tether mcp needs TETHER_TOKEN (an API token: tether token create …) and TETHER_URL", 2);
    const { runStdioRelay } = await import("../lib/mcp-server/stdio.mjs");
    await runStdioRelay({ baseUrl, token: process.env.TETHER_TOKEN });
  },
  worker() {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/worker.ts")], {
      stdio: "inherit",
      cwd: root,
    });
    for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
    child.on("exit", (code) => process.exit(code ?? 0));
  },
  // Local, not over HTTP: set up the database if needed (as `npm start` would), then create the admin.
  async "create-admin"() {
    if (typeof flags.email !== "string" || (typeof flags.password !== "string" && flags["password-stdin"] !== true)) {
      fail('usage: tether create-admin --email <email> (--password <password> | --password-stdin) [--name "…"]', 2);
    }
    const setup = await runScript("scripts/setup.ts", [], "ignore");
    if (setup !== 0) fail("setting up the database failed (see above)", setup);
    process.exit(await runScript("scripts/create-admin.ts", rest, "inherit"));
  },
  // Open gates (docs/gates.md): a script or a CI job asks a person before it acts, and reports what it did.
  async gate() {
    apiErrorExit = 2;
    const [action, gateId] = args;
    const usage =
      "usage: tether gate request --tool <name> --args '<json>' [--description …] [--queue …] [--approvals N] [--expires-in 2h] [--on-expiry reject] [--key K] [--wait [seconds]]\n" +
      "       tether gate wait <gate> [--timeout <seconds>]\n       tether gate outcome <gate> --status happened|failed|not_done [--receipt …] [--detail …]";
    if (action === "request") {
      if (typeof flags.tool !== "string" || typeof flags.args !== "string") fail(usage, 2);
      const gate = await api("POST", "/api/gates", gateRequestBody());
      if (flags.wait === undefined) return console.log(JSON.stringify(gate, null, 2));
      console.error(`tether: gate ${gate.gateId} is waiting for a decision`);
      await waitForGate(gate.gateId, flags.wait === true ? undefined : seconds("--wait", flags.wait));
    } else if (action === "wait") {
      if (!gateId) fail(usage, 2);
      await waitForGate(gateId, flags.timeout === undefined ? undefined : seconds("--timeout", flags.timeout));
    } else if (action === "outcome") {
      if (!gateId || !["happened", "failed", "not_done"].includes(flags.status)) fail(usage, 2);
      const receipt = typeof flags.receipt === "string" ? parseJsonOr(flags.receipt) : undefined;
      const gate = await api("POST", `/api/gates/${encodeURIComponent(gateId)}/outcome`, {
        status: flags.status,
        ...(receipt !== undefined ? { receipt } : {}),
        ...(typeof flags.detail === "string" ? { detail: flags.detail } : {}),
      });
      console.log(JSON.stringify(gate, null, 2));
    } else fail(usage, 2);
  },
  // Local: writes agents/<name>/ (docs/agents.md) and lists it in agents/index.ts.
  async new() {
    const [kind, name] = args;
    if (kind !== "agent" || !name) fail("usage: tether new agent <name> [--dir <agents folder>]", 2);
    const { scaffoldAgent, ScaffoldError } = await import("../lib/sdk/scaffold.mjs");
    const agentsDir = path.resolve(typeof flags.dir === "string" ? flags.dir : path.join(root, "agents"));
    let made;
    try {
      made = scaffoldAgent(name, agentsDir);
    } catch (error) {
      if (error instanceof ScaffoldError) fail(error.message, 2);
      throw error;
    }
    for (const file of made.files) console.log(`created ${path.relative(process.cwd(), file)}`);
    if (made.listed) console.log(`listed ${name} in ${path.relative(process.cwd(), path.join(agentsDir, "index.ts"))}`);
    else
      console.log(
        `add it to ${path.relative(process.cwd(), path.join(agentsDir, "index.ts"))} yourself: import it and put it in \`agents\``,
      );
    console.log(
      `next: npx vitest run ${path.relative(process.cwd(), path.join(agentsDir, name))}, then read docs/agents.md`,
    );
  },
  // Local: retention once, as a deployment's periodic purge would (TETHER_RETENTION_DAYS), with the counts.
  async purge() {
    const setup = await runScript("scripts/setup.ts", ["--no-seed"], "ignore");
    if (setup !== 0) fail("setting up the database failed (see above)", setup);
    process.exit(await runScript("scripts/purge.ts", rest, "inherit"));
  },
  // Local: backups (docs/backup.md). Export reads the database as it is; import sets it up first (a new deployment).
  async export() {
    process.exit(await runScript("scripts/backup.ts", ["export", ...rest], "ignore"));
  },
  async replay() {
    // The script runs in the package's folder: files named relative to here are passed as absolute paths.
    const files = new Set(["--dataset", "--allow", "--json"]);
    const scriptArgs = rest.map((arg, i) => (i > 0 && files.has(rest[i - 1]) ? path.resolve(arg) : arg));
    process.exit(await runScript("scripts/replay.ts", scriptArgs, "inherit"));
  },
  async import() {
    const setup = await runScript("scripts/setup.ts", ["--no-seed"], "ignore", "ignore");
    if (setup !== 0) fail("setting up the database failed (run `npm run db:deploy` to see why)", setup);
    // The script runs in the package's folder: a file named relative to here is passed as an absolute path.
    const scriptArgs = rest.map((arg) => (arg === "-" || arg.startsWith("--") ? arg : path.resolve(arg)));
    process.exit(await runScript("scripts/backup.ts", ["import", ...scriptArgs], "inherit"));
  },
};

/** POST /api/gates's body from `tether gate request`'s flags. */
function gateRequestBody() {
  let actionArgs;
  try {
    actionArgs = JSON.parse(flags.args);
  } catch (error) {
    fail(`--args is not valid JSON: ${error.message}`, 2);
  }
  if (flags.approvals !== undefined && !/^\d+$/.test(String(flags.approvals)))
    fail("--approvals takes a whole number", 2);
  const text = (name) => (typeof flags[name] === "string" ? flags[name] : undefined);
  const expiresIn = text("expires-in");
  return {
    action: { tool: flags.tool, args: actionArgs },
    // A CI retry finds its gate again only under the same key: pass --key (e.g. the pipeline's id) for that.
    idempotencyKey: text("key") ?? randomUUID(),
    description: text("description"),
    queue: text("queue"),
    approvals: flags.approvals === undefined ? undefined : Number(flags.approvals),
    expiresIn: expiresIn !== undefined && /^\d+$/.test(expiresIn) ? Number(expiresIn) : expiresIn,
    onExpiry: text("on-expiry"),
  };
}

function seconds(flag, value) {
  if (!/^\d+$/.test(String(value))) fail(`${flag} takes a whole number of seconds`, 2);
  return Number(value);
}

const parseJsonOr = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * Long-polls GET /api/gates/:id (up to 60 s a request) until the gate is decided or `timeoutSeconds` passed;
 * prints the gate and exits 0 (approved/edited), 3 (rejected/redirected/expired) or 4 (still pending).
 * No answer, a 429 or a 502–504 is asked again: a CI job's long wait survives a proxy's hiccup.
 */
async function waitForGate(gateId, timeoutSeconds) {
  const deadline = timeoutSeconds === undefined ? Infinity : Date.now() + timeoutSeconds * 1000;
  let backoffMs = 500;
  let gate;
  for (;;) {
    const wait = Math.max(0, Math.min(60, Math.floor((deadline - Date.now()) / 1000)));
    const answer = await request("GET", `/api/gates/${encodeURIComponent(gateId)}${wait > 0 ? `?wait=${wait}` : ""}`);
    if ([0, 429, 502, 503, 504].includes(answer.status) && Date.now() + backoffMs < deadline) {
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 15_000);
      continue;
    }
    if (answer.status !== 200) failWith(answer);
    gate = answer.json;
    backoffMs = 500;
    if (gate.status !== "pending" || wait === 0 || Date.now() >= deadline) break;
  }
  console.log(JSON.stringify(gate, null, 2));
  if (gate.status === "approved" || gate.status === "edited") return;
  if (gate.status === "pending") {
    console.error(`tether: gate ${gateId} is still pending after ${timeoutSeconds} s`);
    process.exit(4);
  }
  console.error(`tether: gate ${gateId} was ${gate.status}${gate.reason ? `: ${gate.reason}` : ""}`);
  process.exit(3);
}

/** Runs a TypeScript script of this package in the package's folder; resolves to its exit code. */
function runScript(script, scriptArgs, stdin, stdout = "inherit") {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, script), ...scriptArgs], {
      stdio: [stdin, stdout, "inherit"],
      cwd: root,
    });
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

if (!command || !commands[command]) {
  console.log(
    "usage: tether <run|runs|show|packets|approve|reject|token|schedule|gate|mcp|worker|create-admin|purge|export|import|replay|new> …  (TETHER_URL, TETHER_TOKEN)",
  );
  process.exit(command ? 2 : 0);
}
await commands[command]();
