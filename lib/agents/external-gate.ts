import { z } from "zod";
import {
  canonicalJson,
  expiryPolicySchema,
  sha256,
  ToolError,
  type AgentDefinition,
  type ToolDefinition,
} from "@/lib/runtime";
import { argsSchemaFromJsonSchema } from "@/lib/tools/registered/json-schema";

// The open gate's agent (docs/gates-api.md): a caller outside Tether asks whether it may run one action; the
// run's one step is the human gate on that action. The requested tool is the caller's, never Tether's: the
// run makes a tool of its own for it (AgentDefinition.runTools) named `external:<tool>`, whose arguments are
// checked against the caller's JSON Schema (or any object) and which Tether never executes — after an
// approval the run waits, parked, for the caller's outcome report (ToolDefinition.external). So the inbox,
// the digest, separation of duties (the requester is the run's startedBy), queues, four eyes, expiry,
// notifications, audit and traces are the engine's own, unchanged.

export const EXTERNAL_GATE_AGENT = "external-gate";
/** The signal a caller's outcome report arrives as (POST /api/gates/:id/outcome). */
export const GATE_OUTCOME_SIGNAL = "gate.outcome";
export const EXTERNAL_TOOL_PREFIX = "external:";

export const gateEvidenceSchema = z.object({
  key: z.string().trim().min(1).max(200),
  value: z.unknown(),
  source: z.string().trim().min(1).max(200).optional(),
  at: z.iso.datetime({ offset: true }).optional(),
});

/** A run's input: the request as it is kept (POST /api/gates without its idempotency key, durations in seconds). */
export const gateRunInputSchema = z.object({
  action: z.object({
    tool: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .regex(/^[\w.:/-]+$/, "Use letters, digits and . : / - _ in a tool name."),
    args: z.record(z.string(), z.unknown()),
    schema: z.record(z.string(), z.unknown()).optional(),
  }),
  description: z.string().max(4000).optional(),
  evidence: z.array(gateEvidenceSchema).max(50).default([]),
  impact: z.string().trim().min(1).max(1000).optional(),
  uncertainty: z.string().trim().min(1).max(2000).optional(),
  queue: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[\w-]+$/, "Use letters, digits, - and _.")
    .default("default"),
  approvals: z.number().int().min(1).max(5).default(1),
  expiresInSeconds: z
    .number()
    .int()
    .positive()
    .max(365 * 86_400)
    .nullable()
    .default(null),
  onExpiry: expiryPolicySchema().default("reject"),
  callbackUrl: z
    .url({ protocol: /^https?$/, error: "Give an http(s) URL." })
    .max(2000)
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type GateRunInput = z.output<typeof gateRunInputSchema>;

export const gateToolName = (tool: string) => `${EXTERNAL_TOOL_PREFIX}${tool}`;

/** The caller's argument schema as zod: its JSON Schema when it gave one that converts, else any JSON object. */
export function gateArgsSchema(schema: Record<string, unknown> | undefined): z.ZodType {
  if (!schema) return z.record(z.string(), z.unknown());
  const converted = argsSchemaFromJsonSchema(schema);
  // requestGate refuses a schema that does not convert; a stored one that no longer does still gets a tool.
  return converted.ok ? converted.schema : z.record(z.string(), z.unknown());
}

/** The run's own tool for the requested action. Never throws: a run whose tool cannot be made would fall back to a same-named one. */
export function gateTool(input: GateRunInput): ToolDefinition {
  const { action } = input;
  return {
    name: gateToolName(action.tool),
    description: `${action.tool}, run by the caller that asked for this gate once a person approves it`,
    capability: "execute",
    semantics: "unsafe", // Tether cannot repeat it: only the caller knows whether it ran
    input: gateArgsSchema(action.schema),
    impact: (args) => input.impact ?? `${action.tool} with ${canonicalJson(args)} (run by the caller after approval)`,
    run: async () => {
      throw new ToolError("internal", `${action.tool} is run by the caller, not by Tether`, "not_applied");
    },
    // An approval is bound to the schema the reviewer edited against.
    registration: `external:${sha256(canonicalJson(action.schema ?? null)).slice(0, 16)}`,
    external: {
      terms: {
        queue: input.queue,
        approvals: input.approvals,
        ttlSeconds: input.expiresInSeconds,
        onExpire: input.onExpiry,
      },
      evidence: input.evidence,
      outcomeSignal: GATE_OUTCOME_SIGNAL,
    },
  };
}

export const externalGateAgent: AgentDefinition<GateRunInput> = {
  slug: EXTERNAL_GATE_AGENT,
  version: "1",
  name: "Open gate",
  description:
    "A person decides on an action a caller outside Tether asked to run (POST /api/gates); the caller runs it and reports the outcome.",
  instructions: "Ask a person whether the caller may run the requested action; then record what the caller reports.",
  input: gateRunInputSchema,
  tools: [],
  internal: true,
  maxSteps: 10,
  runTools: (input) => {
    const parsed = gateRunInputSchema.safeParse(input);
    return parsed.success ? [gateTool(parsed.data)] : [];
  },
  policy: {
    // Step 0 asks; whatever comes back (the caller's report, a rejection, a redirect, an expiry, a refusal) ends the run.
    async decide({ state }) {
      const input = gateRunInputSchema.parse(state.input);
      const last = state.observations.at(-1);
      if (!last) {
        return {
          decision: {
            kind: "call",
            tool: gateToolName(input.action.tool),
            args: input.action.args,
            planStep: "decide",
            reasoning: input.description,
            uncertainty: input.uncertainty,
            evidence: input.evidence.map((e) => e.key),
          },
        };
      }
      return { decision: { kind: "complete", output: { outcome: last.kind, message: last.message } } };
    },
  },
};
