import { z } from "zod";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";

// What a client sends as `command.resume`, read into one answer per interrupt. Three shapes:
// - the Agent Inbox's `[HumanResponse]`: {type: accept|edit|response|ignore, args}, answering the
//   thread's pending interrupts in order;
// - LangChain's HITL middleware `{decisions: [...]}`: {type: approve|edit|reject|ignore, edited_action?,
//   message?, args?}, also in order (the Agent Inbox sends its HumanResponse's args along);
// - a map from interrupt id (the packet id) to a HumanResponse, a one-element list of one, or {decisions}.

export type AnswerKind = "accept" | "edit" | "respond" | "ignore";
/** One answer; `packetId` when the client named the interrupt, else it answers the thread's next pending one. */
export type Answer = {
  packetId?: string;
  kind: AnswerKind;
  editedAction?: string;
  editedArgs?: unknown;
  text?: string;
};

const actionRequest = z.object({
  action: z.string().optional(),
  name: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const humanResponse = z.object({
  type: z.enum(["accept", "edit", "response", "ignore"]),
  args: z.unknown().optional(),
});
const hitlDecision = z.object({
  type: z.enum(["approve", "edit", "reject", "ignore"]),
  args: z.unknown().optional(),
  edited_action: actionRequest.optional(),
  message: z.string().optional(),
});
const hitlDecisions = z.object({ decisions: z.array(hitlDecision).min(1, "Send at least one decision.") });

const KIND_OF: Record<string, AnswerKind> = {
  accept: "accept",
  approve: "accept",
  edit: "edit",
  response: "respond",
  reject: "respond",
  ignore: "ignore",
};

const invalid = (message: string, fieldErrors?: Record<string, string[]>) =>
  new AppError("INVALID_INPUT", { message: `invalid resume: ${message}`, userMessage: message, fieldErrors });

/** The edited action of an edit: an ActionRequest {action|name, args|arguments}. */
function editedActionOf(value: unknown, where: string): Pick<Answer, "editedAction" | "editedArgs"> {
  const parsed = actionRequest.safeParse(value);
  const args = parsed.success ? (parsed.data.args ?? parsed.data.arguments) : undefined;
  if (!parsed.success || !args)
    throw invalid("An edit sends the edited action: {action, args}.", {
      [where]: ["Expected {action, args} with the edited arguments."],
    });
  return { editedAction: parsed.data.action ?? parsed.data.name, editedArgs: args };
}

function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function fromHumanResponse(value: z.infer<typeof humanResponse>, where: string): Answer {
  const kind = KIND_OF[value.type];
  if (kind === "edit") return { kind, ...editedActionOf(value.args, `${where}.args`) };
  if (kind === "respond") return { kind, text: textOf(value.args) ?? "" };
  return { kind };
}

function fromHitlDecision(value: z.infer<typeof hitlDecision>, where: string): Answer {
  const kind = KIND_OF[value.type];
  if (kind === "edit")
    return {
      kind,
      ...editedActionOf(
        value.edited_action ?? value.args,
        value.edited_action ? `${where}.edited_action` : `${where}.args`,
      ),
    };
  if (kind === "respond") return { kind, text: value.message ?? textOf(value.args) ?? "" };
  return { kind };
}

function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, where: string, message: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw invalid(
      message,
      Object.fromEntries(
        Object.entries(fieldErrorsFromIssues(parsed.error.issues)).map(([key, errors]) => [
          key === "_" ? where : `${where}.${key}`,
          errors,
        ]),
      ),
    );
  return parsed.data;
}

/** An answer of the human-in-the-loop middleware, `{ decisions: [...] }`, its errors placed at `where`. */
const parseHitlDecisions = (value: unknown, where: string) =>
  parseOrThrow(hitlDecisions, value, where, "Each decision is {type: approve|edit|reject|ignore, ...}.").decisions;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The answers `command.resume` holds, or INVALID_INPUT naming the field that is wrong. Nothing is decided here. */
export function answersOf(resume: unknown): Answer[] {
  const where = "command.resume";
  if (Array.isArray(resume)) {
    if (resume.length === 0) throw invalid("Send at least one response.", { [where]: ["Empty list."] });
    return resume.map((item, i) =>
      fromHumanResponse(
        parseOrThrow(
          humanResponse,
          item,
          `${where}.${i}`,
          "Each response is {type: accept|edit|response|ignore, args}.",
        ),
        `${where}.${i}`,
      ),
    );
  }
  if (isRecord(resume) && "decisions" in resume) {
    const decisions = parseHitlDecisions(resume, where);
    return decisions.map((decision, i) => fromHitlDecision(decision, `${where}.decisions.${i}`));
  }
  if (isRecord(resume) && Object.keys(resume).length > 0) {
    return Object.entries(resume).map(([packetId, value]) => {
      const at = `${where}.${packetId}`;
      const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
      if (isRecord(one) && "decisions" in one) {
        const decisions = parseHitlDecisions(one, at);
        if (decisions.length !== 1)
          throw invalid("Answer each interrupt with one decision.", { [at]: ["One decision per interrupt."] });
        return { packetId, ...fromHitlDecision(decisions[0], `${at}.decisions.0`) };
      }
      return {
        packetId,
        ...fromHumanResponse(
          parseOrThrow(humanResponse, one, at, "Answer an interrupt with {type: accept|edit|response|ignore, args}."),
          at,
        ),
      };
    });
  }
  throw invalid(
    "command.resume is a list of responses, {decisions: [...]}, or a map from interrupt id to a response.",
    { [where]: ["Expected a list, {decisions}, or {<interrupt id>: response}."] },
  );
}
