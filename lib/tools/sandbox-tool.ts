import type { LedgerEffect, ToolCallContext, ToolDefinition } from "@/lib/runtime";
import type { SandboxClient } from "./http";

// A built-in tool of the sandbox world, made from what is particular to it; what they all do alike is said here:
//   a read is a GET, pure-read with the capability "read" (the two go together, as defineTool requires);
//   a tool that changes something is a POST, and an idempotent one passes its key as the Idempotency-Key
//   header (the systems' replay protection: the same key returns the first result and changes nothing new);
//   its entry in the world's ledger is its own name, system · action ("payments.refund" → payments · refund),
//   unless it gives another.

/** A read: the fields of a ToolDefinition less those every read has alike, and the path it reads. */
export type SandboxReadSpec<I, O> = Omit<ToolDefinition<I, O>, "capability" | "semantics" | "run" | "ledger"> & {
  /** The path to GET, e.g. `/orders/${seg(orderId)}` (seg: a value a person or model supplied). */
  get: (args: I, ctx: ToolCallContext) => string;
};

/** A tool that changes something: the fields of a ToolDefinition less run, and the path it posts to. */
export type SandboxEffectSpec<I, O> = Omit<ToolDefinition<I, O>, "run"> & {
  post: string;
  /** The JSON body; unset, the arguments as they are. */
  body?: (args: I, ctx: ToolCallContext) => unknown;
};

export function sandboxRead<I, O>(client: SandboxClient, spec: SandboxReadSpec<I, O>): ToolDefinition<I, O> {
  const { name, description, get, ...rest } = spec;
  return {
    name,
    description,
    capability: "read",
    semantics: "pure-read",
    ...rest,
    run: (args, ctx) => client.get(get(args, ctx), ctx),
  };
}

export function sandboxEffect<I, O>(client: SandboxClient, spec: SandboxEffectSpec<I, O>): ToolDefinition<I, O> {
  const { name, ledger = ledgerOf(name), post, body = (args) => args, ...rest } = spec;
  const idempotencyKey = (ctx: ToolCallContext) =>
    rest.semantics === "idempotent" ? { headers: { "idempotency-key": ctx.idempotencyKey } } : {};
  return {
    name,
    ledger,
    ...rest,
    run: (args, ctx) => client.post(post, ctx, { body: body(args, ctx), ...idempotencyKey(ctx) }),
  };
}

/** "payments.refund" → { system: "payments", action: "refund" }. */
function ledgerOf(name: string): LedgerEffect {
  const dot = name.indexOf(".");
  return { system: name.slice(0, dot), action: name.slice(dot + 1) };
}
