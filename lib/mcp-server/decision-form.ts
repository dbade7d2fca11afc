import { z } from "zod";
import { decidePacketSchema } from "@/lib/runtime/decide-packet";
import type { DecisionPacket } from "@/lib/runtime/types";

// The decision form, derived from decidePacketSchema (the one the HTTP API and the inbox validate with),
// never copied: its JSON Schema is a union of objects, one per decision ({decision: "reject", reason}…).
// MCP wants flat objects: a tool's input schema should be `type: object`, and an elicitation's form may
// only hold primitive fields. So the union is flattened into one object: `decision` (an enum of the
// union's literals) and every other field any branch has, described with the decisions that take it.
// What the person fills in goes back through decidePacket, which validates it with the union itself.

type JsonSchema = Record<string, unknown>;
type Branch = { decision: string; properties: Record<string, JsonSchema>; required: string[] };
export type DecisionField = { name: string; schema: JsonSchema; decisions: string[]; requiredFor: string[] };

let cached: { branches: Branch[]; fields: DecisionField[] } | undefined;

function derive() {
  if (cached) return cached;
  const json = z.toJSONSchema(decidePacketSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const options = (json.oneOf ?? json.anyOf ?? [json]) as JsonSchema[];
  const branches: Branch[] = options.flatMap((option) => {
    const { decision, ...properties } = (option.properties ?? {}) as Record<string, JsonSchema>;
    const literal =
      decision?.const ?? (Array.isArray(decision?.enum) && decision.enum.length === 1 ? decision.enum[0] : undefined);
    if (typeof literal !== "string") return [];
    return [
      {
        decision: literal,
        properties,
        required: ((option.required ?? []) as string[]).filter((key) => key !== "decision"),
      },
    ];
  });
  const byName = new Map<string, DecisionField>();
  for (const branch of branches) {
    for (const [name, schema] of Object.entries(branch.properties)) {
      const field = byName.get(name) ?? { name, schema: {}, decisions: [], requiredFor: [] };
      // One type when every branch agrees on it; otherwise any JSON value.
      field.schema =
        field.decisions.length === 0 ? typeOnly(schema) : schema.type === field.schema.type ? field.schema : {};
      field.decisions.push(branch.decision);
      if (branch.required.includes(name)) field.requiredFor.push(branch.decision);
      byName.set(name, field);
    }
  }
  cached = { branches, fields: [...byName.values()] };
  return cached;
}

const typeOnly = (schema: JsonSchema): JsonSchema => (typeof schema.type === "string" ? { type: schema.type } : {});

const describeField = (field: DecisionField) =>
  `For ${field.decisions.join(", ")}${field.requiredFor.length ? ` (required for ${field.requiredFor.join(", ")})` : ""}.`;

/** Every decision decidePacketSchema knows. */
export const decisionKinds = (): string[] => derive().branches.map((b) => b.decision);

/** The decision's fields as flat JSON Schema properties (the decide_packet tool's input). */
export function decisionToolProperties(): Record<string, JsonSchema> {
  const { fields } = derive();
  return {
    decision: {
      type: "string",
      enum: decisionKinds(),
      description: "What you decide: one of the options the packet offers (list_packets shows them).",
    },
    ...Object.fromEntries(fields.map((f) => [f.name, { ...f.schema, description: describeField(f) }])),
  };
}

/** Input for decidePacket from a flat answer: the decision and the fields its branch takes. */
export function decisionInputFromFlat(
  answer: Record<string, unknown>,
  opts: { parseJsonFields?: boolean } = {},
): Record<string, unknown> {
  const branch = derive().branches.find((b) => b.decision === answer.decision);
  if (!branch) return { decision: answer.decision }; // decidePacket names the unknown decision
  const input: Record<string, unknown> = { decision: branch.decision };
  for (const [name, schema] of Object.entries(branch.properties)) {
    let value = answer[name];
    if (value === undefined || value === "") continue; // a blank form field is an absent one
    if (opts.parseJsonFields && !isPrimitiveSchema(schema) && typeof value === "string") {
      try {
        value = JSON.parse(value);
      } catch {
        // left as text: decidePacket (or the tool's own schema, for edited arguments) says what is wrong
      }
    }
    input[name] = value;
  }
  return input;
}

const isPrimitiveSchema = (schema: JsonSchema) =>
  ["string", "number", "integer", "boolean"].includes(String(schema.type));

const LABELS: Record<string, string> = {
  approve: "Approve",
  edit: "Approve with edited arguments",
  reject: "Reject",
  redirect: "Redirect the agent",
  happened: "It happened",
  retry: "It did not happen: run it again",
  skip: "It did not happen: skip it",
};

/**
 * An elicitation form for one packet: its options as a titled single select, and the fields those
 * options take (a non-primitive field, like edited arguments, as JSON text; it starts from the
 * proposed arguments).
 */
export function decisionElicitationSchema(packet: DecisionPacket, options: readonly string[]) {
  const { fields } = derive();
  const known = new Set(decisionKinds());
  const offered = options.filter((o) => known.has(o));
  const properties: Record<string, JsonSchema> = {
    decision: { type: "string", title: "Decision", oneOf: offered.map((o) => ({ const: o, title: LABELS[o] ?? o })) },
  };
  for (const field of fields) {
    const usedBy = field.decisions.filter((d) => offered.includes(d));
    if (usedBy.length === 0) continue;
    const description = describeField({
      ...field,
      decisions: usedBy,
      requiredFor: field.requiredFor.filter((d) => offered.includes(d)),
    });
    if (isPrimitiveSchema(field.schema)) properties[field.name] = { ...field.schema, title: field.name, description };
    else {
      properties[field.name] = {
        type: "string",
        title: `${field.name} (JSON)`,
        description: `${description} JSON.`,
        ...(field.name === "args" && packet.args !== undefined ? { default: JSON.stringify(packet.args) } : {}),
      };
    }
  }
  return { type: "object" as const, properties, required: ["decision"] };
}
