import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { MockLanguageModelV2 } from "ai/test";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agents as listedAgents } from "@/agents";
import { demoAgents } from "@/lib/agents";
import { initialState, type PolicyInput } from "@/lib/runtime";
import { defineAgent, defineTool, isDefinedAgent, loadAgents, SdkDefinitionError, z, type AgentSpec } from "@/lib/sdk";
import { identifierFor, scaffoldAgent } from "@/lib/sdk/scaffold.mjs";

// The agent SDK without a database: what defineAgent and defineTool accept, refuse and compile to;
// loading a folder of agents; the `tether new agent` scaffold.

const input = z.object({ orderId: z.string().min(1), amountCents: z.number().int().default(0) });
const base = {
  slug: "test-agent",
  version: "1",
  description: "Tests the SDK.",
  instructions: "Do the thing.",
  input,
  tools: ["orders.get", "payments.refund"],
  policy: () => ({ kind: "complete" as const, output: null }),
} satisfies AgentSpec<typeof input>;

function policyInput(runInput: unknown): PolicyInput {
  const state = initialState({
    agent: { slug: "test-agent", version: "1", instructionsHash: "h" },
    instructions: "Do the thing.",
    input: runInput,
  });
  return {
    state,
    instructions: state.instructions,
    lastObservation: undefined,
    tools: [],
    now: () => new Date(0),
    randomId: () => "r",
  };
}

const definitionError = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SdkDefinitionError);
    return (error as Error).message;
  }
  throw new Error("expected a definition error");
};

describe("defineAgent", () => {
  it("compiles tools to allow rules and gates to approval rules, always or on a condition", () => {
    const agent = defineAgent({
      ...base,
      tools: ["orders.get", "payments.refund", "mail.send"],
      gates: {
        "payments.refund": { when: { path: "amountCents", op: "gt", value: 10_000 }, queue: "refunds", approvals: 2 },
        "mail.send": { queue: "outreach", ttlSeconds: 3600, onExpire: "escalate:oncall" },
      },
    });
    expect(agent.defaultPermissions).toEqual([
      { agent: "test-agent", tool: "orders.get", effect: "allow" },
      {
        agent: "test-agent",
        tool: "payments.refund",
        effect: "allow",
        conditions: [{ path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" }],
        approvals: 2,
        queue: "refunds",
      },
      {
        agent: "test-agent",
        tool: "mail.send",
        effect: "require_approval",
        queue: "outreach",
        ttlSeconds: 3600,
        onExpire: "escalate:oncall",
      },
    ]);
    expect(agent.definition).toMatchObject({
      slug: "test-agent",
      version: expect.stringMatching(/^[0-9a-f]{12}$/),
      label: "1",
      name: "test-agent",
      tools: ["orders.get", "payments.refund", "mail.send"],
    });
    expect(isDefinedAgent(agent)).toBe(true);
    expect(isDefinedAgent({ ...agent })).toBe(false); // a copy is not what defineAgent made
  });

  it("compiles skipWhen to a gate skipped when its predicates hold, and a budget onto the definition", () => {
    const agent = defineAgent({
      ...base,
      gates: { "payments.refund": { skipWhen: { path: "amountCents", op: "lte", value: 2_000 } } },
      budget: { toolCalls: 20, usd: 1.5 },
    });
    expect(agent.defaultPermissions.find((p) => p.tool === "payments.refund")).toEqual({
      agent: "test-agent",
      tool: "payments.refund",
      effect: "require_approval",
      conditions: [{ path: "amountCents", op: "lte", value: 2_000, effect: "skip_gate" }],
    });
    expect(agent.definition.budget).toEqual({ toolCalls: 20, usd: 1.5 });
    expect(
      definitionError(() =>
        defineAgent({
          ...base,
          gates: {
            "payments.refund": {
              when: { path: "a", op: "gt", value: 1 },
              skipWhen: { path: "a", op: "lte", value: 1 },
            },
          },
        }),
      ),
    ).toMatch(/not both/);
    expect(definitionError(() => defineAgent({ ...base, budget: { toolCalls: 0 } }))).toMatch(/budget: toolCalls/);
  });

  it("hands a scripted policy the run's parsed input, and passes a full Policy through", async () => {
    let seen: unknown;
    const scripted = defineAgent({
      ...base,
      policy: ({ input: runInput }) => {
        seen = runInput;
        return { kind: "complete", output: runInput.orderId };
      },
    });
    expect(await scripted.definition.policy.decide(policyInput({ orderId: "o-1", amountCents: 0 }))).toEqual({
      decision: { kind: "complete", output: "o-1" },
    });
    expect(seen).toEqual({ orderId: "o-1", amountCents: 0 });
    const policy = {
      decide: async () => ({ decision: { kind: "fail" as const, reason: "no" }, usage: { inputTokens: 1 } }),
    };
    expect(defineAgent({ ...base, policy }).definition.policy).toBe(policy);
  });

  it("refuses a definition that cannot work, saying what to change", () => {
    expect(definitionError(() => defineAgent({ ...base, slug: "Bad Slug" }))).toMatch(/slug must be lowercase/);
    expect(definitionError(() => defineAgent({ ...base, gates: { "mail.send": {} } }))).toMatch(
      /gate on "mail.send", which is not in tools/,
    );
    expect(definitionError(() => defineAgent({ ...base, tools: ["orders.get", "orders.get"] }))).toMatch(
      /"orders.get" twice/,
    );
    expect(definitionError(() => defineAgent({ ...base, exampleInput: { orderId: "" } }))).toMatch(
      /exampleInput does not match the input schema: orderId:/,
    );
    expect(definitionError(() => defineAgent({ ...base, model: true } as never))).toMatch(
      /either a policy .* or model: true/,
    );
    const { policy: _policy, ...noBrain } = base;
    expect(definitionError(() => defineAgent(noBrain as never))).toMatch(/either a policy/);
    expect(definitionError(() => defineAgent({ ...base, gates: { "payments.refund": { approvals: 9 } } }))).toMatch(
      /approvals must be 1 to 5/,
    );
    expect(definitionError(() => defineAgent({ ...base, input: { parse: () => 1 } as never }))).toMatch(
      /input must be a zod schema/,
    );
    expect(definitionError(() => defineAgent({ ...base, spawns: ["Not A Slug"] }))).toMatch(
      /spawns must be a list of agent slugs/,
    );
  });

  it("names the agents it may start child runs of; they are part of its version, and nothing changes without them", () => {
    const plain = defineAgent(base);
    expect(plain.definition.spawns).toBeUndefined();
    expect(defineAgent({ ...base, spawns: [] }).definition.version).toBe(plain.definition.version);
    const parent = defineAgent({ ...base, spawns: ["reviewer", "reviewer"] });
    expect(parent.definition.spawns).toEqual(["reviewer"]);
    expect(parent.definition.version).not.toBe(plain.definition.version);
  });

  describe("model: true", () => {
    const saved = process.env.TETHER_MODEL;
    afterEach(() => {
      if (saved === undefined) delete process.env.TETHER_MODEL;
      else process.env.TETHER_MODEL = saved;
    });
    const { policy: _policy, ...spec } = base;

    it("thinks with the model it is given (the AI SDK loaded on first use)", async () => {
      const model = new MockLanguageModelV2({
        provider: "mock",
        modelId: "m",
        doGenerate: async () => ({
          content: [
            {
              type: "tool-call",
              toolCallId: "c1",
              toolName: "complete",
              input: JSON.stringify({ output: { done: true }, reasoning: "Nothing to do." }),
            },
          ],
          finishReason: "tool-calls",
          usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
          warnings: [],
        }),
      });
      const agent = defineAgent({ ...spec, model: { model } });
      const out = await agent.definition.policy.decide(policyInput({ orderId: "o-1", amountCents: 0 }));
      expect(out.decision).toMatchObject({ kind: "complete", output: { done: true } });
      expect(model.doGenerateCalls).toHaveLength(1);
    });

    it("without a configured model, its decision fails with what to set", async () => {
      delete process.env.TETHER_MODEL;
      const agent = defineAgent({ ...spec, model: true });
      await expect(agent.definition.policy.decide(policyInput({ orderId: "o-1" }))).rejects.toThrow(
        /test-agent thinks with a model and none is configured: set TETHER_MODEL/,
      );
    });
  });

  it("the demo agents are made with it", () => {
    for (const agent of demoAgents) expect(isDefinedAgent(agent), agent.definition.slug).toBe(true);
  });
});

describe("defineTool", () => {
  const tool = {
    name: "crm.credit",
    description: "Credit a customer.",
    capability: "execute" as const,
    semantics: "idempotent" as const,
    input: z.object({ customerId: z.string(), amountCents: z.number().int() }),
    impact: ({ amountCents, customerId }: { customerId: string; amountCents: number }) =>
      `credits ${amountCents} cents to ${customerId}`,
    run: async () => ({ creditId: "cr_1" }),
  };

  it("maps run and impact onto the engine's tool", async () => {
    const defined = defineTool({
      ...tool,
      receiptId: (r: { creditId: string }) => r.creditId,
      editableFields: ["amountCents"],
    });
    expect(defined).toMatchObject({
      name: "crm.credit",
      capability: "execute",
      semantics: "idempotent",
      editableFields: ["amountCents"],
    });
    expect(defined.impact({ customerId: "c1", amountCents: 5 })).toBe("credits 5 cents to c1");
    expect(
      await defined.run(
        { customerId: "c1", amountCents: 5 },
        { runId: "r", step: 0, operationId: "o", idempotencyKey: "k", attempt: 1 },
      ),
    ).toEqual({ creditId: "cr_1" });
  });

  it("refuses semantics that cannot be honoured and names that are not its to take", () => {
    expect(definitionError(() => defineTool({ ...tool, semantics: "reconcilable" }))).toMatch(
      /reconcilable tool needs a lookup/,
    );
    expect(definitionError(() => defineTool({ ...tool, lookup: async () => null }))).toMatch(
      /only a reconcilable tool has a lookup/,
    );
    expect(definitionError(() => defineTool({ ...tool, semantics: "pure-read" }))).toMatch(
      /capability is "read", not "execute"/,
    );
    expect(definitionError(() => defineTool({ ...tool, capability: "read" }))).toMatch(/a read tool is pure-read/);
    expect(definitionError(() => defineTool({ ...tool, name: "credit" }))).toMatch(/name must be namespaced/);
    expect(definitionError(() => defineTool({ ...tool, name: "mcp.crm.credit" }))).toMatch(
      /belong to tools an admin registers/,
    );
    expect(definitionError(() => defineTool({ ...tool, editableFields: ["customer"] }))).toMatch(
      /"customer", which the input schema does not have/,
    );
    expect(definitionError(() => defineTool({ ...tool, capability: "delete" as never }))).toMatch(
      /capability must be one of read, draft, approve, execute/,
    );
  });
});

describe("loadAgents", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tether-load-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const agentFile = (slug: string) => `import { defineAgent, z } from "@/lib/sdk";
export default defineAgent({ slug: ${JSON.stringify(slug)}, version: "1", description: "d", instructions: "i", input: z.object({}), tools: [], policy: () => ({ kind: "complete", output: null }) });
`;

  it("loads <dir>/<name>/index.ts and <dir>/<name>.ts, skipping tests, _drafts and other files", async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "beta"));
    writeFileSync(path.join(dir, "beta", "index.ts"), agentFile("beta"));
    writeFileSync(path.join(dir, "beta", "beta.test.ts"), "throw new Error('a test is not an agent');");
    writeFileSync(path.join(dir, "alpha.ts"), agentFile("alpha"));
    writeFileSync(path.join(dir, "_draft.ts"), "throw new Error('skipped');");
    writeFileSync(path.join(dir, "README.md"), "# agents");
    expect((await loadAgents(dir)).map((a) => a.definition.slug)).toEqual(["alpha", "beta"]);
    expect(await loadAgents(path.join(dir, "missing"))).toEqual([]);
  });

  it("refuses a file whose default export is not an agent, and two agents with one slug", async () => {
    const notAgent = tempDir();
    writeFileSync(path.join(notAgent, "plain.ts"), "export default { slug: 'plain' };");
    await expect(loadAgents(notAgent)).rejects.toThrow(
      /plain\.ts: its default export must be an agent made with defineAgent/,
    );
    const twice = tempDir();
    writeFileSync(path.join(twice, "one.ts"), agentFile("same"));
    writeFileSync(path.join(twice, "two.ts"), agentFile("same"));
    await expect(loadAgents(twice)).rejects.toThrow(/both define the agent "same"/);
  });

  it("agents/index.ts lists every agent of the agents/ folder (the app runs that list)", async () => {
    const inFolder = (await loadAgents(path.resolve("agents"))).map((a) => a.definition.slug);
    expect(listedAgents.map((a) => a.definition.slug).sort()).toEqual(inFolder);
  });
});

describe("tether new agent", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tether-new-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes an agent and its test, lists it in agents/index.ts, and the agent loads", async () => {
    writeFileSync(path.join(dir, "index.ts"), readFileSync(path.resolve("agents/index.ts"), "utf8"));
    const made = scaffoldAgent("order-followup", dir);
    expect(made.files.map((f) => path.relative(dir, f))).toEqual([
      "order-followup/index.ts",
      "order-followup/order-followup.int.test.ts",
    ]);
    expect(made.listed).toBe(true);
    const index = readFileSync(path.join(dir, "index.ts"), "utf8");
    expect(index).toContain('import orderFollowupAgent from "./order-followup";');
    expect(index).toMatch(/\/\/ tether:agents\n\s+orderFollowupAgent,/);
    const [agent] = await loadAgents(dir);
    expect(agent.definition).toMatchObject({
      slug: "order-followup",
      version: expect.stringMatching(/^[0-9a-f]{12}$/),
      label: "1",
      tools: ["orders.get", "mail.send"],
    });
    expect(agent.defaultPermissions).toEqual([
      { agent: "order-followup", tool: "orders.get", effect: "allow" },
      { agent: "order-followup", tool: "mail.send", effect: "require_approval", queue: "default" },
    ]);
    expect(identifierFor("deploy-agent")).toBe("deployAgent");
  });

  it("the CLI refuses a bad name and an existing folder", async () => {
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ["bin/tether.mjs", "new", "agent", ...args, "--dir", dir]).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
    expect(await cli("Order_Followup")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/"Order_Followup" is not a valid agent name/),
    });
    expect(await cli("order-followup")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/order-followup already exists/),
    });
    expect(existsSync(path.join(dir, "Order_Followup"))).toBe(false);
  });
});
