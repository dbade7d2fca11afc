import { randomUUID } from "node:crypto";
import {
  ElicitResultSchema,
  RELATED_TASK_META_KEY,
  type ElicitRequestFormParams,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { hasScope } from "@/lib/api/scopes";
import { isAppError } from "@/lib/runtime/errors";
import type { DecisionPacket } from "@/lib/runtime/types";
import type { McpContext } from "./context";
import { decisionElicitationSchema, decisionInputFromFlat } from "./decision-form";

// Gates as input requests. While tasks/result waits on a run and a packet waits for a person, the packet
// is sent to the client as an elicitation/create on that response's stream. The server is stateless, so
// the client's answer (its own POST, perhaps to another process) cannot find the request that asked: the
// request id carries the packet instead (`tether-elicit:<packet>:<nonce>`), and whichever request
// receives the answer decides the packet through decidePacket, as the principal of the token that sent
// it (scope, four eyes and separation of duties apply as for any decision). A tasks/result waiting in
// the same process hears how it went, so a refused answer can be asked again with the reason.

const PREFIX = "tether-elicit:";

export type AnswerOutcome =
  | { kind: "decided"; packetId: string; decision: string }
  | { kind: "refused"; packetId: string; message: string; /** decidePacket's error, when it refused */ error?: unknown }
  | { kind: "declined"; packetId: string; action: string }
  | { kind: "unsupported"; packetId: string; message: string };

// Kept on globalThis: a dev-mode module reload must not split the waiters from the answers.
const globalForMcp = globalThis as unknown as { tetherMcpElicitations?: Map<string, (outcome: AnswerOutcome) => void> };
const waiters = (globalForMcp.tetherMcpElicitations ??= new Map());

/** A packet's decision form as elicitation/create params (also a 2026-07-28 task's input request). */
export function decisionFormParams(
  packet: DecisionPacket,
  options: readonly string[],
  opts: { refusal?: string } = {},
): ElicitRequestFormParams {
  const lines = [
    `${packet.kind === "UNKNOWN_OUTCOME" ? "Did this happen?" : "Approval needed"}: ${packet.content.impact}`,
    `Tool: ${packet.tool}. Packet ${packet.id} of run ${packet.runId}.`,
    ...(packet.content.reasoning ? [`Why: ${packet.content.reasoning}`] : []),
    ...(packet.content.uncertainty ? [`Uncertain: ${packet.content.uncertainty}`] : []),
    ...(packet.requiredApprovals > 1
      ? [`Needs ${packet.requiredApprovals} different approvers (${packet.approvers.length} so far).`]
      : []),
    ...(opts.refusal ? [`Your previous answer was refused: ${opts.refusal}`] : []),
  ];
  return {
    mode: "form",
    message: lines.join("\n"),
    requestedSchema: decisionElicitationSchema(packet, options) as ElicitRequestFormParams["requestedSchema"],
  };
}

export function elicitationRequest(
  packet: DecisionPacket,
  options: readonly string[],
  opts: { taskId: string; refusal?: string },
): { id: string; request: JSONRPCRequest } {
  const id = `${PREFIX}${packet.id}:${randomUUID()}`;
  const params: ElicitRequestFormParams = {
    ...decisionFormParams(packet, options, opts),
    _meta: { [RELATED_TASK_META_KEY]: { taskId: opts.taskId } },
  };
  return { id, request: { jsonrpc: "2.0", id, method: "elicitation/create", params } };
}

/** Calls back once with the answer to elicitation `id` if it reaches this process; the returned function forgets it. */
export function awaitAnswer(id: string, onAnswer: (outcome: AnswerOutcome) => void): () => void {
  waiters.set(id, onAnswer);
  return () => waiters.delete(id);
}

/** A client's response to one of our elicitations (any other message is the SDK's to handle). */
export function isElicitationAnswer(message: unknown): message is JSONRPCMessage & { id: string } {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  return typeof m.id === "string" && m.id.startsWith(PREFIX) && !("method" in m) && ("result" in m || "error" in m);
}

const packetIdOf = (id: string) => id.slice(PREFIX.length).split(":")[0];

/** Turns the answer into a decision by `ctx.principal`; never throws (the answer's POST is answered 202 whatever happens). */
export async function handleElicitationAnswer(
  ctx: McpContext,
  message: { id: string; result?: unknown; error?: { message?: string } },
): Promise<AnswerOutcome> {
  const packetId = packetIdOf(message.id);
  const outcome = await decideFromAnswer(ctx, packetId, message);
  const waiter = waiters.get(message.id);
  waiters.delete(message.id);
  waiter?.(outcome);
  return outcome;
}

/**
 * An answer to a packet's decision form (an elicitation result) as a decision by `ctx.principal`, through
 * decidePacket; never throws. Used for elicitation answers and for a 2026-07-28 task's inputResponses.
 */
export async function decideFromAnswer(
  ctx: McpContext,
  packetId: string,
  message: { result?: unknown; error?: { message?: string } },
): Promise<AnswerOutcome> {
  if (message.error)
    return { kind: "unsupported", packetId, message: message.error.message ?? "the client could not show the form" };
  const result = ElicitResultSchema.safeParse(message.result);
  if (!result.success) return { kind: "refused", packetId, message: "The answer is not an elicitation result." };
  if (result.data.action !== "accept") return { kind: "declined", packetId, action: result.data.action };
  if (!hasScope(ctx.principal.scopes, "packets:decide"))
    return { kind: "refused", packetId, message: 'This token does not have the "packets:decide" scope.' };
  const input = decisionInputFromFlat(result.data.content ?? {}, { parseJsonFields: true });
  try {
    await ctx.runtime.decidePacket({
      packetId,
      reviewer: ctx.principal.principal,
      via: `mcp:${ctx.principal.name}`,
      input,
    });
    return { kind: "decided", packetId, decision: String(input.decision) };
  } catch (error) {
    if (!isAppError(error)) console.error("[tether] deciding a packet from an MCP elicitation failed", error);
    const fields =
      isAppError(error) && error.fieldErrors
        ? ` ${Object.entries(error.fieldErrors)
            .map(([k, v]) => `${k}: ${v.join(", ")}`)
            .join("; ")}`
        : "";
    return {
      kind: "refused",
      packetId,
      message: isAppError(error) ? `${error.userMessage}${fields}` : "Something went wrong on the server.",
      error,
    };
  }
}
