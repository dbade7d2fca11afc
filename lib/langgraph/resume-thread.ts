import type { ApiPrincipal } from "@/lib/api/tokens";
import { findTool } from "@/lib/runtime/context";
import type { DecidePacketInput } from "@/lib/runtime/decide-packet";
import { AppError } from "@/lib/runtime/errors";
import type { DecisionPacket } from "@/lib/runtime/types";
import { readEditedArgs } from "./edited-args";
import { interruptConfigOf } from "./human-interrupt";
import type { ThreadView } from "./present";
import { answersOf, type Answer } from "./resume";
import { getThread, type LangGraphDeps } from "./threads";

// Resuming a thread is deciding its pending approval packets, each through runtime.decidePacket (which
// checks the reviewer's role and queue, separation of duties and the action's digest, exactly as a
// decision in the console). accept → approve; edit → edit (the engine validates and re-digests the
// edited arguments); response → reject with the response as the reason; ignore → redirect, telling the
// agent to leave the action (only where the packet offers redirect). Every answer is read and checked
// before the first decision; the decisions are then made in order, and a refusal stops there.

const NOT_OFFERED: Record<Answer["kind"], string> = {
  accept: "allow_accept",
  edit: "allow_edit",
  respond: "allow_respond",
  ignore: "allow_ignore",
};

/** The instruction an "ignore" gives the agent: a redirect away from the proposed action, which it replans from. */
export function ignoreInstruction(packet: Pick<DecisionPacket, "tool">, reviewer: string): string {
  return `${reviewer} dismissed this request in the Agent Inbox without approving it: do not perform ${packet.tool} as proposed; continue without it.`;
}

const noPendingInterrupt = (view: ThreadView) =>
  new AppError("CONFLICT", {
    message: `thread ${view.run.id} has no pending interrupt`,
    userMessage: `Thread ${view.run.id} has no pending interrupt to resume (the run is ${view.run.status.toLowerCase()}).`,
  });

/** Pairs each answer with its packet: a named one must be an interrupt of this thread; the others take the pending ones in order. */
async function pairAnswers(
  deps: LangGraphDeps,
  view: ThreadView,
  answers: Answer[],
): Promise<Array<{ packet: DecisionPacket; answer: Answer }>> {
  const named = answers.filter((a) => a.packetId !== undefined);
  if (named.length === 0) {
    if (view.pending.length === 0) throw noPendingInterrupt(view);
    if (answers.length > view.pending.length) {
      throw new AppError("INVALID_INPUT", {
        message: "more responses than interrupts",
        userMessage: `Thread ${view.run.id} has ${view.pending.length} pending interrupt(s); ${answers.length} responses were sent.`,
        fieldErrors: { "command.resume": ["One response per pending interrupt."] },
      });
    }
    return answers.map((answer, i) => ({ packet: view.pending[i], answer }));
  }
  return Promise.all(
    answers.map(async (answer) => {
      // An id the thread never asked (another run's packet included) is unknown here: nothing of another thread is decided.
      const packet = answer.packetId
        ? await deps.runtime.store.getPacket(answer.packetId, view.run.workspaceId)
        : undefined;
      if (!packet || packet.runId !== view.run.id || packet.kind !== "APPROVAL") {
        throw new AppError("NOT_FOUND", {
          message: `interrupt ${answer.packetId} not on thread ${view.run.id}`,
          userMessage: `Thread ${view.run.id} has no interrupt ${answer.packetId}.`,
        });
      }
      return { packet, answer };
    }),
  );
}

async function decisionInput(
  deps: LangGraphDeps,
  packet: DecisionPacket,
  answer: Answer,
  reviewer: string,
): Promise<DecidePacketInput> {
  const config = interruptConfigOf(packet);
  if (packet.status === "PENDING" && !config[NOT_OFFERED[answer.kind] as keyof typeof config]) {
    throw new AppError("INVALID_INPUT", {
      message: `${answer.kind} not offered on ${packet.id}`,
      userMessage: `"${answer.kind === "respond" ? "response" : answer.kind}" is not offered on interrupt ${packet.id} (see its config).`,
      fieldErrors: { "command.resume": [`${NOT_OFFERED[answer.kind]} is false for ${packet.id}.`] },
    });
  }
  if (answer.kind === "accept") return { decision: "approve" };
  if (answer.kind === "respond") return { decision: "reject", reason: answer.text ?? "" };
  if (answer.kind === "ignore") return { decision: "redirect", instruction: ignoreInstruction(packet, reviewer) };
  if (answer.editedAction && answer.editedAction !== packet.tool) {
    throw new AppError("INVALID_INPUT", {
      message: `edit changes the tool of ${packet.id}`,
      userMessage: `An edit changes the arguments of ${packet.tool}, not the tool (${answer.editedAction} was sent).`,
      fieldErrors: { "command.resume": ["The edited action must be the proposed one."] },
    });
  }
  const tool = await findTool(deps.runtime.context, packet.tool);
  const args = answer.editedArgs as Record<string, unknown>;
  return { decision: "edit", args: tool ? readEditedArgs(tool, args) : args };
}

/** `assistantId`, when sent, must be the thread's graph (the agent's slug): a client pointed at the wrong inbox is told so. */
export async function resumeThread(
  deps: LangGraphDeps,
  opts: { threadId: string; principal: ApiPrincipal; resume: unknown; assistantId?: string },
): Promise<{ view: ThreadView; decided: DecisionPacket[] }> {
  const view = await getThread(deps, opts.threadId);
  if (opts.assistantId && opts.assistantId !== view.run.agentSlug) {
    throw new AppError("INVALID_INPUT", {
      message: `assistant ${opts.assistantId} is not ${view.run.agentSlug}`,
      userMessage: `Thread ${view.run.id} belongs to graph ${view.run.agentSlug}, not ${opts.assistantId}.`,
      fieldErrors: { assistant_id: [`Use ${view.run.agentSlug}.`] },
    });
  }
  const pairs = await pairAnswers(deps, view, answersOf(opts.resume));
  const reviewer = opts.principal.principal;
  const inputs = await Promise.all(pairs.map(({ packet, answer }) => decisionInput(deps, packet, answer, reviewer)));
  const decided: DecisionPacket[] = [];
  for (const [i, { packet }] of pairs.entries()) {
    decided.push(
      await deps.runtime.decidePacket({
        packetId: packet.id,
        reviewer,
        via: `langgraph:token:${opts.principal.name}`,
        input: inputs[i],
      }),
    );
  }
  return { view, decided };
}
