// A model policy: the agent's next decision is chosen by a language model (Vercel AI SDK, any provider).
//
// Each turn the model sees the run's explicit state — the instructions in force, the input, the plan, the
// facts with their kind, authority and age, the approvals and what was turned down, the last observations —
// and calls one tool or several: the agent's tools (the engine checks permissions, validates the arguments
// against the tool's schema and executes them) and, only as the last call, a control tool (complete, fail,
// sleep, wait_event, record; and `spawn` for an agent that may start child runs: AgentDefinition.spawns).
// The SDK never executes anything: the tools are offered without `execute`.
//
// Several calls in one turn: the first is the step's decision, the rest `queued`; the engine keeps
// them in the run's state and takes one a step without asking again, and drops the rest once one of them does
// not succeed (lib/runtime/turns.ts). A call after one that cannot be used (an unknown tool, input that is not
// an object) is dropped with it (raw.droppedToolCalls); a control tool before the last call makes the reply
// unusable, and the model is asked again.
//
// What the model does not choose (docs/security.md): the plan step a call serves — permission rules match on it — is
// the plan's active step; the key its result is kept under may be suggested, and the engine keeps it under
// the tool's own key when that key holds a fact the tool does not own (lib/runtime/fact-keys.ts).
//
// Replay: the engine records the decision with the step's commit (and in the effect intent before a call),
// so a resumed run never asks the model again for a step it acted on, and a fork replays it while its state
// is the source's. Arguments are not validated here: a bad call comes back to the model as the step's
// observation, which the prompt shows.
//
// Live output: given a token sink (the console's live feed, lib/live), the model is called with streamText
// and what it writes — its text and its tool calls' arguments as they arrive — is published under the run as
// it comes (the run page shows it); nothing of it is stored: the step commits the finished answer exactly as
// without streaming. Without a sink, or with `stream: false` (a provider that cannot stream), generateText.
//
// The parts (lib/agents/model-policy/): options.ts (the configuration), create-model-policy.ts (a turn, with its
// retries), call-model.ts (the request; generateText) and stream-answer.ts (streamText), offer-tools.ts and
// control-tools.ts (what the model may call), interpret-turn.ts (its calls as decisions), with-model-policies.ts.
export { CONTROL_TOOLS } from "./model-prompt";
export { createModelPolicy } from "./model-policy/create-model-policy";
export type { ModelPolicyOptions } from "./model-policy/options";
export { withModelPolicies } from "./model-policy/with-model-policies";
