// `npx tether new agent <name>`: writes agents/<name>/index.ts (a scripted agent made with the SDK) and
// agents/<name>/<name>.int.test.ts (its test against the sandbox world), and lists the agent in
// agents/index.ts so the app runs it. Plain JavaScript: the CLI runs it without a TypeScript loader.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const SLUG = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const IMPORTS_MARK = "// tether:imports";
const AGENTS_MARK = "// tether:agents";

export class ScaffoldError extends Error {}

/** "order-followup" → "orderFollowupAgent": the name agents/index.ts imports it as. */
export function identifierFor(name) {
  const camel = name.replace(/-([a-z0-9])/g, (_m, c) => c.toUpperCase());
  return camel.endsWith("Agent") ? camel : `${camel}Agent`;
}

/**
 * Creates the agent's folder in `agentsDir`. Refuses a bad name or an existing folder. Returns the files
 * it wrote and whether it could list the agent in agentsDir/index.ts (it cannot when the markers are gone).
 */
export function scaffoldAgent(name, agentsDir) {
  if (typeof name !== "string" || !SLUG.test(name) || name.length > 64) {
    throw new ScaffoldError(
      `"${name ?? ""}" is not a valid agent name: use lowercase letters, digits and dashes, starting with a letter (e.g. order-followup)`,
    );
  }
  const dir = path.join(agentsDir, name);
  if (existsSync(dir))
    throw new ScaffoldError(
      `${path.relative(process.cwd(), dir) || dir} already exists: pick another name, or edit that agent`,
    );
  mkdirSync(dir, { recursive: true });
  const files = [path.join(dir, "index.ts"), path.join(dir, `${name}.int.test.ts`)];
  writeFileSync(files[0], agentTemplate(name));
  writeFileSync(files[1], testTemplate(name));
  return { files, listed: listAgent(name, path.join(agentsDir, "index.ts")) };
}

/** Adds the agent to agents/index.ts at its markers; false when the file or a marker is missing. */
function listAgent(name, indexFile) {
  if (!existsSync(indexFile)) return false;
  const source = readFileSync(indexFile, "utf8");
  if (!source.includes(IMPORTS_MARK) || !source.includes(AGENTS_MARK)) return false;
  const id = identifierFor(name);
  const next = source
    .replace(IMPORTS_MARK, `${IMPORTS_MARK}\nimport ${id} from "./${name}";`)
    .replace(new RegExp(`^(\\s*)${AGENTS_MARK}`, "m"), (line, indent) => `${line}\n${indent}${id},`);
  writeFileSync(indexFile, next);
  return true;
}

function agentTemplate(name) {
  return `import { defineAgent, latestFact, outcomeOf, stepOf, z } from "@/lib/sdk";

// ${name}: scaffolded by \`npx tether new agent ${name}\` — replace what it does with yours (docs/agents.md).
// It reads an order (orders.get, a built-in read tool), then emails the customer (mail.send) once a
// person approves (the gate). Its version is derived from this definition and this file's code (source):
// runs keep the version they started with; \`label\` is only a name for people.

export default defineAgent({
  slug: ${JSON.stringify(name)},
  label: "1",
  source: import.meta.url,
  name: ${JSON.stringify(name)},
  description: "Reads an order and, once a person approves, emails its customer a note.",
  instructions: "Read the order, then write its customer the note you were given. A person approves every email.",
  input: z.object({
    orderId: z.string().trim().min(1, "Give the order id, e.g. ord_1001."),
    note: z.string().trim().min(1, "Write the note to send.").max(2000, "Keep the note under 2,000 characters."),
  }),
  tools: ["orders.get", "mail.send"],
  // Every email waits for a person in the inbox's "default" queue. A gate can also ask only sometimes:
  // { when: { path: "amountCents", op: "gt", value: 10_000 } }.
  gates: { "mail.send": { queue: "default" } },
  exampleInput: { orderId: "ord_1001", note: "Your order is on its way." },
  plan: [
    { id: "read", title: "Read the order" },
    { id: "email", title: "Email the customer (a person approves)" },
  ],
  // A scripted policy: the next decision from the run's state alone (no clock, network or randomness),
  // so a resumed run decides the same. Or \`model: true\` instead: it thinks with TETHER_MODEL.
  policy: ({ input, state }) => {
    const order = latestFact(state, "order");
    if (!order) {
      const failed = outcomeOf(state, "orders.get", -1);
      if (failed?.kind === "tool_error") return { kind: "fail", reason: \`Could not read order \${input.orderId}: \${failed.message}\` };
      return { kind: "call", tool: "orders.get", args: { orderId: input.orderId }, resultKey: "order", planStep: "read", evidence: [] };
    }
    const { customerEmail, customerName } = order.value as { customerEmail: string; customerName: string };
    const mail = latestFact(state, "mail");
    if (!mail) {
      const reply = outcomeOf(state, "mail.send", stepOf(order));
      if (reply?.kind === "tool_error") return { kind: "fail", reason: \`The email to \${customerEmail} could not be sent: \${reply.message}\` };
      // Rejected, expired, redirected, or a person said it never happened: stop and say why.
      if (reply) return { kind: "complete", output: { sent: false, reason: reply.message } };
      return {
        kind: "call",
        tool: "mail.send",
        args: { to: customerEmail, subject: \`About your order \${input.orderId}\`, body: \`Hi \${customerName},\\n\\n\${input.note}\` },
        resultKey: "mail",
        planStep: "email",
        reasoning: \`Tell \${customerName} about order \${input.orderId}.\`,
        evidence: ["order"],
      };
    }
    return { kind: "complete", output: { sent: true, to: customerEmail, messageId: (mail.value as { messageId?: string }).messageId ?? null } };
  },
});
`;
}

function testTemplate(name) {
  return `import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import { startSandboxServer, type SandboxServer } from "@/lib/sandbox/http-server";
import { applyDefaultPermissions } from "@/lib/sdk";
import { createTether } from "@/lib/tether";
import { providers } from "@/tests/support/runtime";
import { createSandboxOrder } from "@/tests/support/sandbox-world";
import agent from "./index";

// ${name} against the sandbox world (the simulated shop, mail and deploy systems behind the built-in
// tools), with the real engine, on each test database. Run it: npx vitest run agents/${name}

describe.each(providers())("${name} [%s]", (_provider, url) => {
  let db: Db;
  let sandbox: SandboxServer;
  let runtime: Runtime;
  const slug = agent.definition.slug;
  const work = () => runtime.createWorker().drain();
  const mailSent = async (runId: string) => {
    const { entries } = (await (await fetch(\`\${sandbox.url}/ledger?runId=\${runId}\`)).json()) as { entries: Array<{ system: string }> };
    return entries.filter((e) => e.system === "mail").length;
  };
  async function start(input: unknown) {
    const { run } = await runtime.startRun({ agent: slug, input, startedBy: "operator@test" });
    await work();
    return runtime.getRun(run.id);
  }
  async function decide(runId: string, decision: Record<string, unknown>) {
    const [packet] = await runtime.store.findPackets({ runId, status: ["PENDING"] });
    await runtime.decidePacket({ packetId: packet.id, reviewer: "reviewer@test", input: decision });
    await work();
    return runtime.getRun(runId);
  }

  beforeAll(async () => {
    db = createDb(url);
    sandbox = await startSandboxServer(db);
    runtime = createTether({ db, agents: [agent.definition], sandbox: { sandboxUrl: sandbox.url }, registeredTools: false, retryBaseDelayMs: 5 }).runtime;
    await applyDefaultPermissions(runtime, agent, { by: "test" });
  });
  afterAll(async () => {
    await sandbox.close();
    await db.$disconnect();
  });

  it("reads the order, waits for a person, then emails the customer once", async () => {
    const order = await createSandboxOrder(db);
    const run = await start({ orderId: order.id, note: "Your order is on its way." });
    expect(run.status).toBe("WAITING_APPROVAL");
    expect(await mailSent(run.id)).toBe(0);
    const done = await decide(run.id, { decision: "approve" });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ sent: true, to: order.customerEmail });
    expect(await mailSent(run.id)).toBe(1);
  });

  it("sends nothing when the person rejects", async () => {
    const order = await createSandboxOrder(db);
    const run = await start({ orderId: order.id, note: "Your order is on its way." });
    const done = await decide(run.id, { decision: "reject", reason: "Wrong customer." });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ sent: false });
    expect(await mailSent(run.id)).toBe(0);
  });

  it("refuses an input its schema does not accept", async () => {
    await expect(runtime.startRun({ agent: slug, input: { orderId: "" } })).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });
});
`;
}
