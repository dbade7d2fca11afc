import type { Tool } from "ai";
import { FACT_AUTHORITY, type Fact, type Observation, type PolicyInput } from "@/lib/runtime";

// The model policy's prompt: the run's explicit state rendered for a language model — instructions in
// force, input, plan, facts with their kind, authority and age, approvals and refusals, the last
// observations — and the small text helpers it shares with model-policy.ts.

export const CONTROL_TOOLS = ["complete", "fail", "sleep", "wait_event", "record"] as const;
export type ControlTool = (typeof CONTROL_TOOLS)[number];
/** Offered besides the control tools when the agent may start child runs (AgentDefinition.spawns): it ends a turn too. */
export const SPAWN_TOOL = "spawn";

/** What a function name offered to the model stands for. */
export type Target = { kind: "agent"; tool: string } | { kind: "control"; tool: ControlTool } | { kind: "spawn" };
export type Offer = { tools: Record<string, Tool>; targets: Map<string, Target>; fnName: Map<string, string> };

const MAX_FACTS = 60;
const MAX_VALUE_CHARS = 1500;
const RECENT_OBSERVATIONS = 5;

// ---- the prompt

export function renderSystem(input: PolicyInput): string {
  const [own, ...redirects] = input.instructions;
  return [
    "You are the decision-maker of an agent run by Tether, a durable runtime. Each turn you choose the run's next action by calling a tool — or its next few actions, by calling several tools.",
    "The runtime acts on your choice: it checks permissions, may ask a person to approve, validates the arguments against the tool's schema, executes the tool, and records the outcome as facts and an observation you will see next turn. You never see a transcript: the run's state below is the record.",
    "Rules:",
    "- Put a tool's own arguments under `args`; cite the fact keys you rely on in `evidence`.",
    "- You may call several tools in one turn when none needs the result of another: they run in that order, one after the other, each checked and approved like any call. If one fails or is turned down, the ones after it are not made and you decide again. A control tool (complete, fail, sleep, wait_event, record) may only be the last call of a turn.",
    "- Trust facts by their kind: decision (a person decided) and receipt (an external system confirmed) are authoritative; an observation was true when read and may be stale — re-read a stale one before acting on it; an inference is only a belief, never enough on its own.",
    "- If the last observation is an error, correct the call it describes instead of repeating it. An action a person rejected or a rule denied must not be asked for again unchanged.",
    "- Use `complete` when the task is done, `fail` when it cannot be done, `wait_event` for an external callback, `sleep` to wait for time to pass, `record` to write down a conclusion or update the plan.",
    "",
    "Agent instructions:",
    own ?? "(none)",
    ...(redirects.length
      ? [
          "",
          "A person redirected this run; these instructions came later and override the ones above where they conflict (newest last):",
          ...redirects.map((r, i) => `${i + 1}. ${r}`),
        ]
      : []),
  ].join("\n");
}

export function renderState(input: PolicyInput, offer: Offer): string {
  const { state } = input;
  const now = input.now().getTime();
  const lines: string[] = [];
  lines.push(`Run state at step ${state.step} (now: ${new Date(now).toISOString()}).`, "");
  lines.push("## Input", clip(json(state.input), 4000), "");

  lines.push("## Plan");
  if (state.plan.length) for (const p of state.plan) lines.push(`- ${p.id} [${p.status}]: ${p.title}`);
  else lines.push("(no plan)");
  lines.push("");

  lines.push("## Facts (newest per key; kind and authority in brackets)");
  for (const kind of Object.keys(FACT_AUTHORITY) as Array<keyof typeof FACT_AUTHORITY>)
    lines.push(`  · ${kind}: ${FACT_AUTHORITY[kind].authority}`);
  const facts = latestPerKey(state.facts);
  if (facts.length === 0) lines.push("(no facts yet)");
  if (facts.length > MAX_FACTS) lines.push(`(${facts.length - MAX_FACTS} older facts not shown)`);
  for (const { fact, superseded } of facts.slice(-MAX_FACTS)) lines.push(renderFact(fact, superseded, now));
  lines.push("");

  if (state.approvals.length) {
    lines.push("## Approvals given by people");
    for (const a of state.approvals) {
      lines.push(
        `- ${a.decision} of ${offer.fnName.get(a.tool) ?? a.tool} at step ${a.step} by ${a.by.join(", ") || "?"} (${age(now, a.at)})${a.usedAt ? ", already used" : ", not used yet"}`,
      );
    }
    lines.push("");
  }
  const turnedDown = state.observations.filter(
    (o) => o.kind === "rejected" || o.kind === "denied" || o.kind === "expired" || o.kind === "redirected",
  );
  if (turnedDown.length) {
    lines.push("## Turned down (do not ask again unchanged)");
    for (const o of turnedDown) lines.push(`- step ${o.step}: ${renderObservation(o, offer)}`);
    lines.push("");
  }
  if (state.risks.length) {
    lines.push("## Risks");
    for (const r of state.risks) lines.push(`- [${r.level}] ${r.description}`);
    lines.push("");
  }

  const recent = state.observations.slice(-RECENT_OBSERVATIONS);
  const last = input.lastObservation ?? recent.at(-1);
  const earlier = recent.filter((o) => o !== last);
  if (earlier.length) {
    lines.push("## Earlier observations (oldest first)");
    for (const o of earlier) lines.push(`- step ${o.step}: ${renderObservation(o, offer)}`);
    lines.push("");
  }
  lines.push("## LAST OBSERVATION — the outcome of the previous step");
  lines.push(last ? `step ${last.step}: ${renderObservation(last, offer)}` : "(none: this is the first step)");
  lines.push("");

  lines.push("## Your tools");
  for (const t of input.tools)
    lines.push(`- ${offer.fnName.get(t.name)} = ${t.name} (${t.capability}, ${t.semantics}): ${t.description}`);
  lines.push(`- control: ${CONTROL_TOOLS.join(", ")}`);
  if (input.children?.length) {
    lines.push(
      `- ${SPAWN_TOOL} (last call of a turn): start a run of another agent and wait for it; its outcome comes back as a receipt fact "child:<runId>". Agents:`,
    );
    for (const c of input.children) lines.push(`  - ${c.slug}: ${c.description}`);
  }
  if (state.consecutiveErrors > 0)
    lines.push("", `Warning: ${state.consecutiveErrors} failed action(s) in a row; the run stops after a few more.`);
  lines.push("", "Choose the next action now: call a tool (or several, in the order they should run).");
  return lines.join("\n");
}

function renderFact(fact: Fact, superseded: number, now: number): string {
  const src = fact.source;
  const detail: string[] = [];
  if (fact.kind === "observation") {
    detail.push(`read${src.tool ? ` by ${src.tool}` : ""} ${age(now, fact.at)}`);
    if (fact.expiresAt) {
      const left = Date.parse(fact.expiresAt) - now;
      detail.push(
        left > 0
          ? `fresh for ${duration(left)} more`
          : `STALE since ${duration(-left)} ago: re-read before relying on it`,
      );
    }
  } else if (fact.kind === "receipt") {
    detail.push(
      `confirmed${src.tool ? ` by ${src.tool}` : ""}${src.receiptId ? `, receipt ${src.receiptId}` : ""} ${age(now, fact.at)}`,
    );
  } else if (fact.kind === "decision") {
    detail.push(`decided${src.by ? ` by ${src.by}` : " by a person"} ${age(now, fact.at)}`);
  } else {
    detail.push(`unverified belief from step ${fact.step}, ${age(now, fact.at)}`);
  }
  if (superseded) detail.push(`replaces ${superseded} earlier value(s)`);
  return `- ${fact.key} [${fact.kind}; ${detail.join("; ")}] = ${clip(json(fact.value), MAX_VALUE_CHARS)}`;
}

function renderObservation(o: Observation, offer: Offer): string {
  const tool = o.tool ? ` ${offer.fnName.get(o.tool) ?? o.tool}` : "";
  const data = o.data === undefined ? "" : ` — ${clip(json(o.data), MAX_VALUE_CHARS)}`;
  return `${o.kind}${tool}: ${o.message}${data}`;
}

function latestPerKey(facts: Fact[]): Array<{ fact: Fact; superseded: number }> {
  const byKey = new Map<string, { fact: Fact; superseded: number }>();
  for (const fact of facts) {
    const seen = byKey.get(fact.key);
    byKey.delete(fact.key); // re-inserted last: the map keeps the order in which keys were last learned
    byKey.set(fact.key, { fact, superseded: seen ? seen.superseded + 1 : 0 });
  }
  return [...byKey.values()];
}

function age(now: number, iso: string): string {
  const ms = now - Date.parse(iso);
  return Number.isFinite(ms) ? (ms < 1000 ? "just now" : `${duration(ms)} ago`) : "at an unknown time";
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86_400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

export function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length - max} more chars)` : text;
}
