import { CAPABILITIES, EFFECT_SEMANTICS, type ToolDefinition } from "@/lib/runtime";
import { isZodSchema, SdkDefinitionError } from "./errors";

// defineTool: a tool the engine can call, with what it may change and how a repeat is made safe
// (docs/design.md). Checked when it is defined, so a mistake fails at start-up, not in a run.

/** What a team writes: the engine's ToolDefinition itself (lib/runtime/types.ts documents each field), less
 *  the two fields only Tether sets — `registration` (an admin's registered tool) and `external` (an open
 *  gate's requested action). */
export type ToolSpec<I, O> = Omit<ToolDefinition<I, O>, "registration" | "external">;

const TOOL_NAME = /^[a-z]+(\.[A-Za-z0-9_-]+)+$/;
const RESERVED_PREFIXES = ["http.", "mcp."];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the defaults let a list hold tools of different types
export function defineTool<I = any, O = any>(spec: ToolSpec<I, O>): ToolDefinition<I, O> {
  const where = `defineTool(${JSON.stringify(spec?.name ?? "?")})`;
  const fail = (message: string): never => {
    throw new SdkDefinitionError(`${where}: ${message}`);
  };

  if (typeof spec.name !== "string" || !TOOL_NAME.test(spec.name) || spec.name.length > 100) {
    fail('name must be namespaced, lowercase namespace then letters, digits, _ or -: "crm.get_customer"');
  }
  if (RESERVED_PREFIXES.some((p) => spec.name.startsWith(p)))
    fail(`names starting with ${RESERVED_PREFIXES.join(" or ")} belong to tools an admin registers (POST /api/tools)`);
  if (typeof spec.description !== "string" || !spec.description.trim())
    fail("describe what the tool does (the model and the reviewer read it)");
  if (!CAPABILITIES.includes(spec.capability)) fail(`capability must be one of ${CAPABILITIES.join(", ")}`);
  if (!EFFECT_SEMANTICS.includes(spec.semantics)) fail(`semantics must be one of ${EFFECT_SEMANTICS.join(", ")}`);
  if (spec.semantics === "pure-read" && spec.capability !== "read")
    fail(`a pure-read tool changes nothing: its capability is "read", not "${spec.capability}"`);
  if (spec.capability === "read" && spec.semantics !== "pure-read")
    fail(`a read tool is pure-read; a tool that changes something needs the capability draft, approve or execute`);
  if (spec.semantics === "reconcilable" && typeof spec.lookup !== "function")
    fail("a reconcilable tool needs a lookup that finds an earlier attempt (by ctx.operationId)");
  if (spec.lookup && spec.semantics !== "reconcilable")
    fail(
      `only a reconcilable tool has a lookup (this one is ${spec.semantics}); make it reconcilable or drop the lookup`,
    );
  if (!isZodSchema(spec.input)) fail('input must be a zod schema (import { z } from "@/lib/sdk")');
  if (spec.output !== undefined && !isZodSchema(spec.output)) fail("output must be a zod schema");
  if (typeof spec.run !== "function") fail("run(args, ctx) performs the call");
  if (typeof spec.impact !== "function")
    fail("impact(args) says in one sentence what the call would do, for the reviewer");
  if (spec.freshnessMs !== undefined && !(Number.isInteger(spec.freshnessMs) && spec.freshnessMs > 0))
    fail("freshnessMs must be a positive whole number of milliseconds");
  if (spec.ledger !== undefined) {
    if (spec.semantics === "pure-read")
      fail("a pure-read tool changes nothing, so it leaves nothing in the world's ledger: drop ledger");
    const word = /^[a-z][a-z0-9_-]*$/;
    if (!word.test(String(spec.ledger?.system)) || !word.test(String(spec.ledger?.action)))
      fail('ledger is { system, action } in lowercase words, e.g. { system: "crm", action: "update" }');
  }
  const fields = objectKeys(spec.input);
  for (const field of spec.editableFields ?? []) {
    if (fields && !fields.includes(field))
      fail(`editableFields names "${field}", which the input schema does not have (it has ${fields.join(", ")})`);
  }

  // The same fields, copied: keys a plain-JavaScript caller added (registration, external) do not reach the engine.
  return {
    name: spec.name,
    description: spec.description,
    capability: spec.capability,
    semantics: spec.semantics,
    input: spec.input,
    ...(spec.output ? { output: spec.output } : {}),
    impact: spec.impact,
    run: spec.run,
    ...(spec.lookup ? { lookup: spec.lookup } : {}),
    ...(spec.receiptId ? { receiptId: spec.receiptId } : {}),
    ...(spec.freshnessMs !== undefined ? { freshnessMs: spec.freshnessMs } : {}),
    ...(spec.editableFields ? { editableFields: spec.editableFields } : {}),
    ...(spec.ledger ? { ledger: { system: spec.ledger.system, action: spec.ledger.action } } : {}),
  };
}

/** The keys of an object schema, or null when the schema is not a plain object. */
function objectKeys(schema: unknown): string[] | null {
  const shape = (schema as { shape?: unknown }).shape;
  return shape && typeof shape === "object" ? Object.keys(shape) : null;
}
