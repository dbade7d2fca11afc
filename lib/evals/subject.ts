import path from "node:path";
import { pathToFileURL } from "node:url";
import { tools as teamTools } from "@/agents";
import { appAgents } from "@/lib/agents";
import type { LedgerEffect, ToolDefinition } from "@/lib/runtime";
import type { DefinedAgent } from "@/lib/sdk";
import { createBuiltInTools } from "@/lib/tools";

// What the journey evals put through their faults: agents (as defineAgent makes them) and the tools they
// use, built for one trial's world. By default what the app runs: the demo agents and the team's
// (agents/index.ts), with the built-in tools and the team's; a team can also pass a module of its own
// (`npm run eval -- --agents evals/my-agents.ts`) whose default export is an EvalSubject.
// A module, not an object, because crash trials rebuild the same engine in fresh worker processes.
//
// The world's ledger is read through what the tools declare (ToolDefinition.ledger): which effect a call
// leaves there. A tool without the declaration is not counted (a read, or a system the world cannot see).

export type EvalWorld = {
  /** The trial's sandbox world (…/api/sandbox); a function is read at every call (the port is late-bound). */
  sandboxUrl: string | (() => string);
  /** A client timeout for calls to it. */
  timeoutMs: number;
};

export type EvalSubject = {
  agents: DefinedAgent[];
  /** Every tool the agents use, reaching the trial's world. */
  tools: (world: EvalWorld) => ToolDefinition[];
};

/** tool name → the ledger entry its effect leaves (tools that declare one). */
export type LedgerEffects = Record<string, LedgerEffect>;

export const appSubject: EvalSubject = {
  agents: appAgents,
  tools: (world) => [...createBuiltInTools(world), ...teamTools],
};

/** The subject a module exports (default export), or the demo one when no module is named. */
export async function loadSubject(module?: string | null): Promise<EvalSubject> {
  if (!module) return appSubject;
  const file = path.resolve(module);
  const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { default?: Partial<EvalSubject> };
  const subject = mod.default;
  if (!subject || !Array.isArray(subject.agents) || typeof subject.tools !== "function") {
    throw new Error(
      `${module}: its default export must be { agents: [defineAgent(…)], tools: (world) => [defineTool(…)] }`,
    );
  }
  return subject as EvalSubject;
}

export function ledgerEffectsOf(tools: ToolDefinition[]): LedgerEffects {
  return Object.fromEntries(
    tools.flatMap((t) =>
      t.ledger && t.semantics !== "pure-read" ? [[t.name, { system: t.ledger.system, action: t.ledger.action }]] : [],
    ),
  );
}

/** The declarations alone: the tools built against no world (nothing is called). */
export function declaredLedgerEffects(subject: EvalSubject): LedgerEffects {
  return ledgerEffectsOf(subject.tools({ sandboxUrl: "http://127.0.0.1:9/api/sandbox", timeoutMs: 1 }));
}
