import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { demoAgents } from "@/lib/agents";
import { AgentRegistry, type AgentDefinition } from "@/lib/runtime";
import { defineAgent, sourceFiles, sourceHash, z, type AgentSpec } from "@/lib/sdk";

// An agent's version is derived from what shapes its decisions: the same definition is the same version
// wherever it is defined, any change to it (or to its module's code) is another, a label changes nothing.

const input = z.object({ orderId: z.string(), amountCents: z.number().int() });
const base = {
  slug: "versioned-agent",
  description: "Refunds.",
  instructions: "Refund what is owed.",
  input,
  tools: ["orders.get", "payments.refund"],
  gates: { "payments.refund": { when: { path: "amountCents", op: "gt" as const, value: 10_000 } } },
  policy: () => ({ kind: "complete" as const, output: null }),
} satisfies AgentSpec<typeof input>;
const versionOf = (spec: Partial<AgentSpec<typeof input>>) =>
  defineAgent({ ...base, ...spec } as AgentSpec<typeof input>).definition.version;

describe("derived agent versions", () => {
  it("is the same for the same definition and changes with anything that shapes decisions", () => {
    const v = versionOf({});
    expect(v).toMatch(/^[0-9a-f]{12}$/);
    expect(versionOf({})).toBe(v);
    expect(versionOf({ label: "2" })).toBe(v); // a label names a version, it is not one
    const changed = [
      versionOf({ instructions: "Refund what is owed, politely." }),
      versionOf({ gates: { "payments.refund": { when: { path: "amountCents", op: "gt", value: 20_000 } } } }), // a threshold
      versionOf({ tools: ["orders.get", "payments.refund", "mail.send"] }),
      versionOf({ input: input.extend({ note: z.string().optional() }) }),
      versionOf({ grants: { "orders.get": { capabilities: ["read"] } } }),
      versionOf({ maxSteps: 10 }),
      versionOf({ policy: undefined, model: { temperature: 0.2 } } as Partial<AgentSpec<typeof input>>),
    ];
    expect(new Set([v, ...changed]).size).toBe(changed.length + 1);
  });

  it("gives each demo agent a derived version beside its label", () => {
    for (const agent of demoAgents)
      expect(agent.definition).toMatchObject({
        version: expect.stringMatching(/^[0-9a-f]{12}$/),
        label: expect.any(String),
      });
  });
});

describe("source hash", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tether-source-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };

  it("covers the module and its relative imports, transitively, but not packages or the @/ alias", () => {
    write(
      "agent/index.ts",
      `import { z } from "zod";\nimport { defineAgent } from "@/lib/sdk";\nimport { decide } from "./policy";\nexport default decide;`,
    );
    write("agent/policy.ts", `import { LIMIT } from "../shared/limits.js";\nexport const decide = () => LIMIT;`);
    write("shared/limits.ts", `export const LIMIT = 100;`);
    const url = pathToFileURL(path.join(dir, "agent/index.ts")).href;
    expect(sourceFiles(url)).toEqual(["../shared/limits.ts", "index.ts", "policy.ts"]);
    const before = sourceHash(url);
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    write("shared/limits.ts", `export const LIMIT = 200;`); // a threshold two imports away
    const after = sourceHash(url);
    expect(after).not.toBe(before);
    const spec = { ...base, source: url };
    const v200 = defineAgent(spec).definition.version;
    write("shared/limits.ts", `export const LIMIT = 100;`);
    expect(sourceHash(url)).toBe(before);
    expect(defineAgent(spec).definition.version).not.toBe(v200);
    expect(defineAgent(spec).definition.version).not.toBe(versionOf({})); // the code counts beside the definition
  });

  it("is null for a module it cannot read", () => {
    expect(sourceHash(pathToFileURL(path.join(dir, "missing.ts")).href)).toBeNull();
  });
});

describe("agent registry", () => {
  const agent = (version: string): AgentDefinition => ({
    slug: "a",
    version,
    name: "a",
    description: "",
    instructions: "",
    input: z.unknown(),
    tools: [],
    policy: { decide: async () => ({ decision: { kind: "complete", output: null } }) },
  });

  it("holds several versions of one agent: the newest is the one loaded last, each is found by its version", () => {
    const registry = new AgentRegistry([agent("1"), agent("2")]);
    expect(registry.get("a")?.version).toBe("2");
    expect(registry.version("a", "1")?.version).toBe("1");
    expect(registry.version("a", "3")).toBeUndefined();
    expect(registry.versions("a").map((a) => a.version)).toEqual(["1", "2"]);
    registry.add(agent("1")); // loaded again: newest again
    expect(registry.get("a")?.version).toBe("1");
    registry.set("a", agent("3")); // a deployment that drops the others
    expect(registry.versions("a").map((a) => a.version)).toEqual(["3"]);
    expect([...registry.keys()]).toEqual(["a"]);
    expect(registry.has("b")).toBe(false);
  });

  it("keeps a run that started before versions were derived on the loaded version carrying its old label", () => {
    const derived = (version: string, label: string): AgentDefinition => ({ ...agent(version), label });
    const registry = new AgentRegistry([derived("0ac7753d7063", "1"), derived("70b5e1c40170", "2")]);
    expect(registry.version("a", "1")?.version).toBe("0ac7753d7063"); // pinned as "1" before: stays on what "1" names
    expect(registry.version("a", "2")?.version).toBe("70b5e1c40170");
    expect(registry.version("a", "3")).toBeUndefined(); // no loaded version carries that label: gone
    expect(registry.version("a", "0123456789ab")).toBeUndefined(); // a derived version is matched exactly, never by label
  });
});
