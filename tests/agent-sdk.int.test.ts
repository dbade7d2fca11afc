import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { builtInAgents } from "@/lib/agents";
import { createDb, type Db } from "@/lib/db";
import { whyNotDecider } from "@/lib/inbox/queue-deciders";
import type { Runtime } from "@/lib/runtime";
import { applyDefaultPermissions, loadAgents, type DefinedAgent } from "@/lib/sdk";
import { createTether } from "@/lib/tether";
import { startMcpHttpServer } from "./support/mcp-http-server";
import { startRouteServer } from "./support/route-server";
import { providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";

// A team's agent written with the SDK in a folder of its own (input schema, a registered MCP tool, a gate),
// loaded with loadAgents and run through the HTTP API: start, a person's approval, completion, and the
// MCP tool's effect exactly once.
//
// The API's route handlers take their engine from getRuntime() (lib/runtime.server.ts), which runs the
// agents listed in agents/index.ts — a temporary folder cannot be added to it. So this test composes the
// engine as getRuntime does (createTether: the app's agents plus the folder's, registered tools on, the
// queue deciders) and hands it to the real route handlers in place of getRuntime's.

const composed = vi.hoisted(() => ({ runtime: undefined as Runtime | undefined }));
vi.mock("@/lib/runtime.server", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/runtime.server")>();
  return { ...actual, getRuntime: () => composed.runtime ?? actual.getRuntime() };
});

/** The agent's file, as a team would write it: nothing but the SDK. */
const agentSource = (slug: string, tool: string) => `
import { defineAgent, latestFact, outcomeOf, isTurnedDown, z } from "@/lib/sdk";

export default defineAgent({
  slug: ${JSON.stringify(slug)},
  version: "1",
  name: "Note taker",
  description: "Writes a note to the team's notes server; a person approves every note.",
  instructions: "Create the note you are given, once. If a person turns it down, stop.",
  input: z.object({ title: z.string().trim().min(1, "Give the note a title."), body: z.string().max(2000).optional() }),
  tools: [${JSON.stringify(tool)}],
  gates: { ${JSON.stringify(tool)}: { queue: "notes" } },
  exampleInput: { title: "Standup", body: "Ship the SDK." },
  policy: ({ input, state }) => {
    const note = latestFact(state, "note");
    if (note) return { kind: "complete", output: { created: true, note: note.value } };
    const reply = outcomeOf(state, ${JSON.stringify(tool)}, -1);
    if (reply && isTurnedDown(reply)) return { kind: "complete", output: { created: false, reason: reply.message } };
    if (reply?.kind === "tool_error") return { kind: "fail", reason: reply.message };
    return { kind: "call", tool: ${JSON.stringify(tool)}, args: { title: input.title, body: input.body ?? "" }, resultKey: "note", reasoning: "The note asked for.", evidence: [] };
  },
});
`;

describe.each(providers())("an agent written with the SDK, through the HTTP API [%s]", (_provider, url) => {
  const dir = mkdtempSync(path.join(tmpdir(), "tether-agents-"));
  const ledger = path.join(dir, "notes.jsonl");
  const slug = uid("note-taker");
  const tool = `mcp.${uid("notes").replace("-", "_")}.create_note`;
  const savedHosts = process.env.TETHER_TOOL_ALLOWED_HOSTS;
  let db: Db;
  let mcp: Awaited<ReturnType<typeof startMcpHttpServer>>;
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let agent: DefinedAgent;
  let admin: { email: string; token: string };
  let operator: { email: string; token: string };
  let reviewer: { email: string; token: string };

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the routes' own reads (tokens, the queue cap) follow it
    db = createDb(url);
    mcp = await startMcpHttpServer({ ledger });
    process.env.TETHER_TOOL_ALLOWED_HOSTS = new URL(mcp.url).host; // the egress policy refuses loopback unless allowed
    mkdirSync(path.join(dir, "note-taker"));
    writeFileSync(path.join(dir, "note-taker", "index.ts"), agentSource(slug, tool));
    writeFileSync(path.join(dir, "README.md"), "not an agent\n");

    const loaded = await loadAgents(dir);
    expect(loaded.map((a) => a.definition.slug)).toEqual([slug]);
    agent = loaded[0];
    composed.runtime = createTether({
      db,
      agents: [...builtInAgents, ...loaded.map((a) => a.definition)],
      tools: [], // this agent uses a registered tool only; registered tools are on by default
      authorizeDecision: (reviewerEmail, packet) => whyNotDecider(db, reviewerEmail, packet),
    }).runtime;
    server = await startRouteServer();
    admin = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
    operator = await createPersonWithToken(db, {
      role: "operator",
      scopes: ["runs:write", "runs:read", "packets:decide"],
    });
    reviewer = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] });
  });
  afterAll(async () => {
    composed.runtime = undefined;
    if (savedHosts === undefined) delete process.env.TETHER_TOOL_ALLOWED_HOSTS;
    else process.env.TETHER_TOOL_ALLOWED_HOSTS = savedHosts;
    await server?.close();
    await mcp?.close();
    await db?.$disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, urlPath: string, token: string, body?: unknown) => {
    const res = await fetch(server.url + urlPath, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  const work = () => composed.runtime!.createWorker().drain();
  const ledgerLines = () => {
    try {
      return readFileSync(ledger, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };

  it("starts over POST /api/runs, waits at its gate, runs once a second person approves, and completes", async () => {
    // An admin registers the MCP tool the agent names; the agent's gate becomes its permission rule.
    const registered = await call("POST", "/api/tools", admin.token, {
      kind: "mcp",
      name: tool,
      description: "Create a note.",
      capability: "draft",
      semantics: "idempotent",
      inputSchema: {
        type: "object",
        properties: { title: { type: "string", minLength: 1 }, body: { type: "string" } },
        required: ["title"],
      },
      config: { transport: "http", url: mcp.url, tool: "create_note" },
      impactTemplate: 'creates the note "{{title}}"',
    });
    expect(registered.status).toBe(201);
    const rules = await applyDefaultPermissions(composed.runtime!, agent, { by: admin.email });
    expect(rules).toMatchObject([{ agent: slug, tool, effect: "require_approval", queue: "notes" }]);
    expect(await applyDefaultPermissions(composed.runtime!, agent, { by: admin.email })).toEqual([]); // never twice

    // The input schema guards the API.
    const refused = await call("POST", "/api/runs", operator.token, { agent: slug, input: { title: "  " } });
    expect(refused).toMatchObject({ status: 400, json: { error: { code: "INVALID_INPUT" } } });

    const started = await call("POST", "/api/runs", operator.token, {
      agent: slug,
      input: { title: "Standup", body: "Ship the SDK." },
    });
    expect(started).toMatchObject({ status: 201, json: { status: "QUEUED" } });
    const runId = started.json.id as string;
    await work();
    expect((await call("GET", `/api/runs/${runId}`, operator.token)).json.run).toMatchObject({
      status: "WAITING_APPROVAL",
      agentVersion: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(ledgerLines()).toHaveLength(0); // nothing happened before a person approved

    const { json } = await call("GET", `/api/packets?status=pending&runId=${runId}`, reviewer.token);
    expect(json.packets).toHaveLength(1);
    const packet = json.packets[0];
    expect(packet).toMatchObject({ tool, queue: "notes", content: { impact: 'creates the note "Standup"' } });
    // Whoever started the run may not approve its action; a second person may.
    expect(
      await call("POST", `/api/packets/${packet.id}/decision`, operator.token, { decision: "approve" }),
    ).toMatchObject({ status: 403, json: { error: { code: "FORBIDDEN" } } });
    expect(
      await call("POST", `/api/packets/${packet.id}/decision`, reviewer.token, { decision: "approve" }),
    ).toMatchObject({ status: 200, json: { packet: { status: "APPROVED" } } });

    await work();
    const done = (await call("GET", `/api/runs/${runId}`, operator.token)).json.run;
    expect(done.status).toBe("COMPLETED");
    const notes = ledgerLines();
    expect(notes).toHaveLength(1); // the MCP tool's effect, once
    expect(notes[0]).toMatchObject({ action: "create_note", title: "Standup", body: "Ship the SDK." });
    expect(mcp.notes.size).toBe(1);
    await work(); // nothing left to do: still one note
    expect(ledgerLines()).toHaveLength(1);
  });
});
