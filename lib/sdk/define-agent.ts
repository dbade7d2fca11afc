import type { LanguageModel } from "ai"; // a type only: the AI SDK itself is loaded when a model agent first thinks
import type { z } from "zod";
import {
  CAPABILITIES,
  budgetLimitsSchema,
  isValueRef,
  parseExpiryPolicy,
  type AgentDefinition,
  type BudgetLimits,
  type Capability,
  type Decision,
  type PermissionCondition,
  type PermissionInput,
  type PermissionValueRef,
  type Policy,
  type PolicyInput,
  type RunState,
} from "@/lib/runtime";
import { deriveAgentVersion } from "@/lib/runtime/agent-version";
import { isZodSchema, SdkDefinitionError } from "./errors";
import { lazyModelPolicy, type ModelSettings } from "./model";
import { sourceHash } from "./source-hash";

// defineAgent: an agent as data — who it is (slug, version), what it takes (a zod input), what it may use
// (tools), where a person decides (gates), and how it thinks (a scripted policy or a model). Checked when
// it is defined; the result is what the composition root runs and what `runtime.permissions.put` takes.

/** When a gate asks: `path` is a dot path into the tool's arguments. */
export type GateCondition = { path: string; op: PermissionCondition["op"]; value: unknown };

/** A human gate on one tool (docs/design.md). */
export type Gate = {
  /** Ask only when one of these holds (the tool is allowed otherwise). Unset: always ask. */
  when?: GateCondition | GateCondition[];
  /** Or the other way round: ask unless every one of these surely holds ("no gate when amountCents ≤ 2000").
   *  A missing argument or a reference that names nothing keeps the gate; the trace names the predicates that let a call through. */
  skipWhen?: GateCondition | GateCondition[];
  /** Distinct people who must approve (1–5; default 1). Whoever started the run never counts. */
  approvals?: number;
  /** The inbox queue the packet goes to (default "default"). */
  queue?: string;
  /** Unanswered this long, the packet expires… */
  ttlSeconds?: number;
  /** …and is rejected, escalated ("escalate:oncall", or a chain "escalate:leads@2h,cfo@1d" then rejected), or — only when said — approved. Default "reject". */
  onExpire?: "reject" | "approve" | `escalate:${string}`;
};

/** What a tool is granted for, beyond its gate (docs/design.md): enforced by the engine at the moment of acting. */
export type Grant = {
  /** What the agent may do with the tool (default: read, draft, approve and execute). A call needing another is denied. */
  capabilities?: Capability[];
  /** Arguments bound to the run: { orderId: { $input: "orderId" } }. A call whose argument differs (or whose
   *  reference names nothing) is denied. */
  bind?: Record<string, PermissionValueRef>;
  /** A call that changes something and rests only on inferences or expired observations asks a person first. */
  freshEvidence?: boolean;
};

export type PlanStep = { id: string; title: string; status?: RunState["plan"][number]["status"] };

/** A scripted policy: the next decision as a function of the run's state. No network, clock or randomness
 *  (use input.now / input.randomId): a resumed run must decide the same. */
export type ScriptedPolicy<I> = (input: PolicyInput & { input: I }) => Decision | Promise<Decision>;

export type AgentSpec<S extends z.ZodType> = {
  /** Lowercase letters, digits and dashes: "triage-agent". What runs and permissions name. */
  slug: string;
  /** A person's name for this version ("2", "spring-prices"), shown beside the derived version. Optional:
   *  the version itself is a hash of the definition (and of `source`), so an edit is a new version anyway. */
  label?: string;
  /** The former name of `label`: still read, as the label. */
  version?: string;
  /** `import.meta.url`: the agent's module, whose source and local imports become part of its version
   *  (lib/sdk/source-hash.ts). Without it only the definition counts, not the code of a scripted policy. */
  source?: string;
  /** Shown in the console; default: the slug. */
  name?: string;
  description: string;
  /** What the agent is for: the model's system prompt, and on record for every run. */
  instructions: string;
  /** The run's input; POST /api/runs is refused (400, field errors) when it does not parse. */
  input: S;
  /** The tools it uses, built-in or registered (http.*, mcp.*). Each is allowed by default… */
  tools: string[];
  /** …except those with a gate: a person approves (always, or when a condition holds). */
  gates?: Record<string, Gate>;
  /** …and what each tool is granted for: capabilities, arguments bound to the run, fresh evidence. */
  grants?: Record<string, Grant>;
  /** An input that works (the console and GET /api/agents offer it); checked against `input`. */
  exampleInput?: z.input<S>;
  plan?: PlanStep[];
  /** A step budget: a run that exceeds it fails instead of looping (default 200). */
  maxSteps?: number;
  /** A spending budget per run: reaching one parks the run until a person extends it or stops it.
   *  A run's start (POST /api/runs `budget`) overrides it field by field. */
  budget?: BudgetLimits;
  /** The agents whose runs this one may start and wait for (`spawn(agent, input)`; a model gets a spawn tool).
   *  Any other is refused at the moment of acting. Default: none. */
  spawns?: string[];
} & ({ policy: ScriptedPolicy<z.output<S>> | Policy; model?: never } | { model: true | ModelSettings; policy?: never });

/** What defineAgent returns: the engine's definition, an example input and the default permission rules. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one list holds agents of different input types
export type DefinedAgent<I = any> = {
  definition: AgentDefinition<I>;
  exampleInput: unknown;
  /** As `runtime.permissions.put` takes them (applyDefaultPermissions puts the missing ones). */
  defaultPermissions: PermissionInput[];
};

export type { LanguageModel, ModelSettings };

const SLUG = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const BRAND = Symbol.for("tether.sdk.agent");

export function defineAgent<S extends z.ZodType>(spec: AgentSpec<S>): DefinedAgent<z.output<S>> {
  const where = `defineAgent(${JSON.stringify(spec?.slug ?? "?")})`;
  const fail = (message: string): never => {
    throw new SdkDefinitionError(`${where}: ${message}`);
  };

  if (typeof spec.slug !== "string" || !SLUG.test(spec.slug) || spec.slug.length > 64)
    fail('slug must be lowercase letters, digits and dashes, e.g. "triage-agent"');
  const label = spec.label ?? spec.version;
  if (label !== undefined && (typeof label !== "string" || !/^[\w.-]{1,32}$/.test(label)))
    fail('label must be a short string of letters, digits, ".", "_" or "-", e.g. "2" or "spring-prices"');
  if (spec.label !== undefined && spec.version !== undefined && spec.label !== spec.version)
    fail("give label or version (its former name), not both");
  if (spec.source !== undefined && typeof spec.source !== "string") fail("source must be import.meta.url (a string)");
  // A module that cannot be read where it runs (a bundle that moved it) counts by its definition only:
  // refusing to start would take the console down for a version detail.
  const source = spec.source === undefined ? null : sourceHash(spec.source);
  if (typeof spec.description !== "string" || !spec.description.trim())
    fail("describe what the agent does (the console shows it)");
  if (typeof spec.instructions !== "string" || !spec.instructions.trim()) fail("give the agent its instructions");
  if (!isZodSchema(spec.input)) fail('input must be a zod schema (import { z } from "@/lib/sdk")');
  if (!Array.isArray(spec.tools) || spec.tools.some((t) => typeof t !== "string" || !t.trim()))
    fail("tools must be a list of tool names");
  const duplicate = spec.tools.find((t, i) => spec.tools.indexOf(t) !== i);
  if (duplicate) fail(`tools names "${duplicate}" twice`);
  for (const tool of Object.keys(spec.gates ?? {})) {
    if (!spec.tools.includes(tool))
      fail(`a gate on "${tool}", which is not in tools: add it to tools (or remove the gate)`);
  }
  const hasPolicy = spec.policy !== undefined;
  const hasModel = spec.model !== undefined && spec.model !== (false as unknown);
  if (hasPolicy === hasModel)
    fail("give it either a policy (scripted) or model: true (it thinks with TETHER_MODEL) — exactly one");
  if (
    hasPolicy &&
    typeof spec.policy !== "function" &&
    typeof (spec.policy as Policy | undefined)?.decide !== "function"
  ) {
    fail("policy must be a function (input) => Decision, or a Policy { decide }");
  }
  if (spec.maxSteps !== undefined && !(Number.isInteger(spec.maxSteps) && spec.maxSteps > 0))
    fail("maxSteps must be a positive whole number");
  const budget = spec.budget === undefined ? undefined : budgetLimitsSchema.safeParse(spec.budget);
  if (budget && !budget.success)
    fail(
      `budget: ${budget.error.issues.map((i) => `${i.path.join(".") || "(budget)"}: ${i.message}`).join("; ")} (toolCalls and tokens are positive whole numbers, usd a positive amount)`,
    );
  const planIds = (spec.plan ?? []).map((s) => s.id);
  const planDuplicate = planIds.find((id, i) => planIds.indexOf(id) !== i);
  if (planDuplicate) fail(`the plan has two steps with the id "${planDuplicate}"`);
  if (spec.exampleInput !== undefined) {
    const parsed = spec.input.safeParse(spec.exampleInput);
    if (!parsed.success)
      fail(
        `exampleInput does not match the input schema: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ")}`,
      );
  }
  if (
    spec.spawns !== undefined &&
    (!Array.isArray(spec.spawns) || spec.spawns.some((s) => typeof s !== "string" || !SLUG.test(s)))
  )
    fail('spawns must be a list of agent slugs, e.g. ["reviewer"]');
  for (const tool of Object.keys(spec.grants ?? {})) {
    if (!spec.tools.includes(tool))
      fail(`a grant for "${tool}", which is not in tools: add it to tools (or remove the grant)`);
  }
  const defaultPermissions = spec.tools.map((tool) => ({
    ...compileGate(spec.slug, tool, spec.gates?.[tool], fail),
    ...compileGrant(tool, spec.gates?.[tool], spec.grants?.[tool], fail),
  }));

  const described = {
    slug: spec.slug,
    name: spec.name ?? spec.slug,
    description: spec.description,
    instructions: spec.instructions,
    input: spec.input as z.ZodType<z.output<S>>,
    tools: [...spec.tools],
    ...(spec.plan ? { plan: spec.plan.map((s) => ({ id: s.id, title: s.title, status: s.status ?? "pending" })) } : {}),
    ...(spec.maxSteps !== undefined ? { maxSteps: spec.maxSteps } : {}),
    ...(budget?.success ? { budget: budget.data } : {}),
    ...(spec.spawns?.length ? { spawns: [...new Set(spec.spawns)] } : {}),
  };
  const version = deriveAgentVersion(described, {
    permissions: defaultPermissions,
    policy: hasModel ? modelSettingsOf(spec.model!) : "scripted",
    source,
  });
  const definition: AgentDefinition<z.output<S>> = {
    ...described,
    version,
    ...(label !== undefined ? { label } : {}),
    policy: hasModel ? lazyModelPolicy(spec.slug, spec.model === true ? {} : spec.model!) : toPolicy(spec.policy!),
  };
  const agent: DefinedAgent<z.output<S>> = { definition, exampleInput: spec.exampleInput, defaultPermissions };
  Object.defineProperty(agent, BRAND, { value: true });
  return agent;
}

/** A model agent's settings as data: what the version hashes (the model by its provider and id). */
function modelSettingsOf(model: true | ModelSettings): unknown {
  if (model === true) return { model: "TETHER_MODEL" };
  const { model: languageModel, ...rest } = model;
  const id =
    typeof languageModel === "string"
      ? languageModel
      : languageModel
        ? `${languageModel.provider}:${languageModel.modelId}`
        : "TETHER_MODEL";
  return { ...rest, model: id };
}

/** Was this made by defineAgent (in any copy of this module)? */
export function isDefinedAgent(value: unknown): value is DefinedAgent {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

function toPolicy<I>(policy: ScriptedPolicy<I> | Policy): Policy {
  if (typeof policy !== "function") return policy;
  // The engine stores the parsed input (defaults applied) when the run starts: it is handed back as is.
  return { decide: async (input) => ({ decision: await policy({ ...input, input: input.state.input as I }) }) };
}

/** A tool with no gate is allowed; a gate asks always, or only when one of its conditions holds. */
function compileGate(agent: string, tool: string, gate: Gate | undefined, fail: (m: string) => never): PermissionInput {
  if (!gate) return { agent, tool, effect: "allow" };
  const when = listOf(gate.when);
  const skipWhen = listOf(gate.skipWhen);
  if (when.length > 0 && skipWhen.length > 0)
    fail(`the gate on "${tool}": use when (ask only if) or skipWhen (ask unless), not both`);
  for (const c of [...when, ...skipWhen]) {
    if (!c || typeof c.path !== "string" || !c.path)
      fail(`the gate on "${tool}": each condition needs a path into the arguments, e.g. "amountCents"`);
    if (!["gt", "gte", "lt", "lte", "eq", "neq", "in"].includes(c.op))
      fail(`the gate on "${tool}": op must be gt, gte, lt, lte, eq, neq or in`);
  }
  if (gate.approvals !== undefined && !(Number.isInteger(gate.approvals) && gate.approvals >= 1 && gate.approvals <= 5))
    fail(`the gate on "${tool}": approvals must be 1 to 5`);
  if (gate.ttlSeconds !== undefined && !(Number.isInteger(gate.ttlSeconds) && gate.ttlSeconds > 0))
    fail(`the gate on "${tool}": ttlSeconds must be a positive whole number`);
  const expiry = gate.onExpire === undefined ? null : parseExpiryPolicy(gate.onExpire);
  if (expiry && !expiry.ok) fail(`the gate on "${tool}": onExpire: ${expiry.reason}`);
  return {
    agent,
    tool,
    effect: when.length > 0 ? "allow" : "require_approval",
    ...(when.length + skipWhen.length > 0 ? { conditions: gateConditions(gate) } : {}),
    ...(gate.approvals !== undefined ? { approvals: gate.approvals } : {}),
    ...(gate.queue !== undefined ? { queue: gate.queue } : {}),
    ...(gate.ttlSeconds !== undefined ? { ttlSeconds: gate.ttlSeconds } : {}),
    ...(gate.onExpire !== undefined ? { onExpire: gate.onExpire } : {}),
  };
}

const listOf = (conditions: GateCondition | GateCondition[] | undefined): GateCondition[] =>
  conditions === undefined ? [] : Array.isArray(conditions) ? conditions : [conditions];

/** A gate's conditions as the rule holds them: `when` asks a person, `skipWhen` skips the gate. */
function gateConditions(gate: Gate): PermissionCondition[] {
  return [
    ...listOf(gate.when).map((c): PermissionCondition => ({
      path: c.path,
      op: c.op,
      value: c.value,
      effect: "require_approval",
    })),
    ...listOf(gate.skipWhen).map((c): PermissionCondition => ({
      path: c.path,
      op: c.op,
      value: c.value,
      effect: "skip_gate",
    })),
  ];
}

/** A grant's rule fields: bindings become deny conditions, placed before the gate's conditions. */
function compileGrant(
  tool: string,
  gate: Gate | undefined,
  grant: Grant | undefined,
  fail: (m: string) => never,
): Partial<PermissionInput> {
  if (!grant) return {};
  if (
    grant.capabilities !== undefined &&
    (!Array.isArray(grant.capabilities) ||
      grant.capabilities.length === 0 ||
      grant.capabilities.some((c) => !CAPABILITIES.includes(c)))
  ) {
    fail(`the grant for "${tool}": capabilities is a non-empty list of ${CAPABILITIES.join(", ")}`);
  }
  const binds = Object.entries(grant.bind ?? {});
  for (const [path, ref] of binds) {
    if (!path || !isValueRef(ref))
      fail(`the grant for "${tool}": bind "${path}" to { $input: "<path>" } or { $fact: "<key>", path?, tool? }`);
  }
  return {
    ...(binds.length > 0
      ? {
          conditions: [
            ...binds.map(([path, ref]): PermissionCondition => ({ path, op: "neq", value: ref, effect: "deny" })),
            ...(gate ? gateConditions(gate) : []),
          ],
        }
      : {}),
    ...(grant.capabilities ? { capabilities: grant.capabilities } : {}),
    ...(grant.freshEvidence !== undefined ? { freshEvidence: grant.freshEvidence } : {}),
  };
}
