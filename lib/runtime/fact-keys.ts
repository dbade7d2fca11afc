import type { Fact, RunState } from "./state";

// Who may write a fact key (docs/security.md). A policy names the key a tool's result is kept under (resultKey),
// and a model policy takes it from the model: it must not let a result take the place of a fact the tool
// does not own — another tool's result, a person's decision, a signal's receipt, the model's inference —
// which everything reading the newest fact under that key (the next decision, a packet's evidence) would
// then rely on. A key belongs to the tool whose results it holds: a result goes under the key asked for
// only when that key is free or holds nothing but that tool's results; otherwise it is kept under the
// tool's own key (its name, or a key of its own for this step) and the observation says so. Likewise an
// inference (a policy's `record`) never takes a key that holds anything but inferences.

export type ResultKey = { key: string; refused?: { requested: string; heldBy: string } };

/** The key a result of `tool` is kept under at `step`, asked for `requested` (default: the tool's name). */
export function resultKeyFor(state: RunState, tool: string, requested: string | undefined): ResultKey {
  const asked = requested ?? tool;
  const foreign = foreignFact(state, asked, tool);
  if (!foreign) return { key: asked };
  const heldBy = describeOwner(foreign);
  for (let i = 0; ; i++) {
    const key = i === 0 ? tool : `${tool}:step${state.step}${i > 1 ? `.${i}` : ""}`;
    if (key !== asked && !foreignFact(state, key, tool)) return { key, refused: { requested: asked, heldBy } };
  }
}

/**
 * The key an inference the policy records under `requested` is kept under: never in the place of what a
 * tool returned, a person decided or a signal brought — an inference recorded under "refund" must not
 * become the newest "refund" the next decision or a packet's evidence reads as a receipt.
 */
export function inferenceKeyFor(state: RunState, requested: string): ResultKey {
  const held = state.facts.find((f) => f.key === requested && f.kind !== "inference");
  if (!held) return { key: requested };
  const heldBy = describeOwner(held);
  for (let i = 0; ; i++) {
    const key = `${requested}:inference${i > 0 ? `.${i}` : ""}`;
    if (!state.facts.some((f) => f.key === key && f.kind !== "inference"))
      return { key, refused: { requested, heldBy } };
  }
}

/** The first fact under `key` that is not a result of `tool` (observation or receipt it returned). */
function foreignFact(state: RunState, key: string, tool: string): Fact | undefined {
  return state.facts.find(
    (f) => f.key === key && !((f.kind === "observation" || f.kind === "receipt") && f.source.tool === tool),
  );
}

function describeOwner(fact: Fact): string {
  if (fact.kind === "decision") return `a person's decision${fact.source.by ? ` (${fact.source.by})` : ""}`;
  if (fact.kind === "inference") return "the model's inference";
  const kind = `${/^[aeiou]/.test(fact.kind) ? "an" : "a"} ${fact.kind}`;
  if (fact.source.tool) return `${kind} of ${fact.source.tool}`;
  return `${kind}${fact.source.receiptId ? ` (${fact.source.receiptId})` : ""}`;
}
