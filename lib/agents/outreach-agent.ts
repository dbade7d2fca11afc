import {
  defineAgent,
  definePlan,
  isTurnedDown,
  parseDuration,
  readRun,
  stepOf,
  z,
  type Decision,
  type PlanStatus,
  type RunReader,
} from "@/lib/sdk";
import type { Doc, DocSearch, Draft, SentMail, Ticket } from "@/lib/tools";

// outreach-agent: writes to a customer (or answers their ticket) from the docs. It researches, saves a
// draft, then waits (a durable timer of days — seconds in the demo) for a source to appear or change,
// researches again, and proposes the email; sending needs a person's approval (mail is reconcilable:
// an unknown send is looked up, never blindly repeated).
//
// Facts: ticket (observation, when answering one), research (observation) → draft (receipt) →
// recheck (observation) → email (inference: the final text and its sources) → mail (receipt).

export const DEFAULT_WAIT_MS = 3 * 86_400_000;

export const outreachAgentInputSchema = z
  .object({
    /** Answer this ticket (its customer is the recipient)… */
    ticketId: z.string().trim().min(1, "Give the ticket id, e.g. tkt_2001.").optional(),
    /** …or write to this address. */
    to: z.string().trim().email("Give the recipient's email address.").optional(),
    query: z
      .string()
      .trim()
      .min(2, "Search for at least two characters.")
      .max(200, "Keep the query under 200 characters."),
    /** How long to wait for a source before writing the final email. Days in production; seconds in a demo. */
    waitMs: z
      .number()
      .int()
      .min(1_000, "Wait at least one second.")
      .max(30 * 86_400_000, "Wait at most 30 days.")
      .default(DEFAULT_WAIT_MS),
  })
  .refine((i) => i.ticketId || i.to, {
    message: "Give a ticket to answer (ticketId) or a recipient (to).",
    path: ["to"],
  });
export type OutreachAgentInput = z.input<typeof outreachAgentInputSchema>;

export type OutreachEmail = {
  to: string;
  subject: string;
  body: string;
  sources: Array<{ id: string; title: string; updatedAt: string }>;
  /** Sources that appeared or changed while the agent waited. */
  newSources: string[];
};

const plan = definePlan({
  research: "Research the docs",
  draft: "Save a draft email",
  wait: "Wait for a source",
  recheck: "Check the docs again",
  send: "Send the email (a person approves)",
});

const INSTRUCTIONS = `You write to customers from the documentation (or answer their ticket). Search the docs and save a
draft. Then wait for a source — documentation that is about to be published or updated — and search again before
you write the final email, citing the sources it rests on. A person approves every email before it is sent.
If a person asks you to wait longer, wait and search again; for anything else, leave the draft to them.`;

/** Who the email goes to, and what it answers. */
type Audience = { to: string; ticket?: Ticket };

const excerpt = (doc: Doc, max = 280) => (doc.body.length > max ? `${doc.body.slice(0, max).trimEnd()}…` : doc.body);

export function humanDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1000, "second"],
  ];
  const [size, name] = units.find(([size]) => ms >= size && ms % size === 0) ??
    units.find(([size]) => ms >= size) ?? [1000, "second"];
  const n = Math.round(ms / size);
  return `${n} ${name}${n === 1 ? "" : "s"}`;
}

const opening = (audience: Audience) =>
  audience.ticket ? `Thanks for your question ("${audience.ticket.subject}").` : "We thought you would like to know:";

/** The final email: what the docs say now, with what changed since the first search called out. */
export function composeEmail(audience: Audience, first: DocSearch, now: DocSearch): OutreachEmail {
  const before = new Map(first.docs.map((d) => [d.id, d.updatedAt]));
  const fresh = now.docs.filter((d) => before.get(d.id) !== d.updatedAt);
  const lead = fresh[0] ?? now.docs[0];
  const body = [
    "Hi,",
    "",
    opening(audience),
    fresh.length > 0
      ? `"${lead.title}" was ${before.has(lead.id) ? "just updated" : "just published"}: ${excerpt(lead)}`
      : `From "${lead.title}": ${excerpt(lead)}`,
    "",
    `Sources: ${now.docs.map((d) => d.title).join("; ")}.`,
    "",
    "Best regards,",
    "The support team",
  ].join("\n");
  return {
    to: audience.to,
    subject: audience.ticket ? `Re: ${audience.ticket.subject}` : lead.title,
    body,
    sources: now.docs.map((d) => ({ id: d.id, title: d.title, updatedAt: d.updatedAt })),
    newSources: fresh.map((d) => d.id),
  };
}

function draftContent(audience: Audience, query: string, research: DocSearch) {
  const lead = research.docs[0];
  const body = lead
    ? `Hi,\n\n${opening(audience)} From "${lead.title}": ${excerpt(lead)}\n\n(Draft: waiting for newer sources before sending.)`
    : `Hi,\n\n${opening(audience)} We are checking with the team and will get back to you.\n\n(Draft: no source on "${query}" yet.)`;
  return {
    to: audience.to,
    subject: audience.ticket ? `Re: ${audience.ticket.subject}` : (lead?.title ?? query),
    body,
    sources: research.docs.map((d) => d.id),
  };
}

function decide(input: z.output<typeof outreachAgentInputSchema>, run: RunReader): Decision {
  const ticketFact = run.fact("ticket");
  const researchFact = run.fact("research");
  const draftFact = run.fact("draft");
  const ticket = ticketFact?.value as Ticket | undefined;

  if (input.ticketId && !ticket) {
    return run.callUnlessFailed(-1, `Could not read ticket ${input.ticketId}`, {
      tool: "tickets.get",
      args: { ticketId: input.ticketId },
      resultKey: "ticket",
      planStep: "research",
    });
  }
  const audience: Audience = { to: input.to ?? ticket!.customerEmail, ticket };
  const base = { ticketId: input.ticketId ?? null, to: audience.to };
  if (!researchFact) {
    return run.callUnlessFailed(stepOf(ticketFact), "Could not search the docs", {
      tool: "docs.search",
      args: { query: input.query },
      resultKey: "research",
      planStep: "research",
    });
  }
  const research = researchFact.value as DocSearch;
  if (!draftFact) {
    return run.callUnlessFailed(
      stepOf(researchFact),
      "Could not save the draft",
      {
        tool: "drafts.create",
        resultKey: "draft",
        planStep: "draft",
        evidence: ["research"],
        args: { kind: "email", content: draftContent(audience, input.query, research) },
      },
      (outcome) => outcome.kind !== "tool_result", // any outcome but a saved draft ends the run
    );
  }
  const draft = draftFact.value as Partial<Draft>;

  // A person may ask for more patience ("wait 2 more days"): another timer, then another search.
  const redirectStep = run.lastStep("redirected", "mail.send");
  const redirect = redirectStep >= 0 ? run.redirect() : undefined;
  const waitAgain = redirect && /\b(wait|later|longer)\b/i.test(redirect) ? redirectStep : -1;
  const recheckFact = run.fact("recheck");
  const sleptAt = run.lastStep("timer");
  if ((!recheckFact || stepOf(recheckFact) < waitAgain) && sleptAt <= Math.max(stepOf(draftFact), waitAgain)) {
    const ms = waitAgain >= 0 ? (parseDuration(redirect!) ?? input.waitMs) : input.waitMs;
    return {
      kind: "sleep",
      durationMs: ms,
      reason: `Waiting ${humanDuration(ms)} for a source on "${input.query}" before writing the final email`,
    };
  }
  const staleStep = run.lastStep("stale", "mail.send");
  if (!recheckFact || stepOf(recheckFact) < sleptAt || stepOf(recheckFact) <= staleStep) {
    return run.callUnlessFailed(Math.max(sleptAt, staleStep), "Could not search the docs again", {
      tool: "docs.search",
      args: { query: input.query },
      resultKey: "recheck",
      planStep: "recheck",
    });
  }
  const recheck = recheckFact.value as DocSearch;
  const stopped = (output: Record<string, unknown>, send: PlanStatus = "skipped") =>
    run.complete(plan({ research: "done", draft: "done", wait: "done", recheck: "done", send }), {
      sent: false,
      ...base,
      draftId: draft.draftId ?? null,
      ...output,
    });
  if (recheck.docs.length === 0)
    return stopped({ reason: `No documentation matches "${input.query}" yet; the draft is left for a person.` });

  const emailFact = run.fact("email");
  if (!emailFact || stepOf(emailFact) < stepOf(recheckFact)) {
    const email = composeEmail(audience, research, recheck);
    return {
      kind: "record",
      facts: [{ key: "email", value: email }],
      plan: plan({ research: "done", draft: "done", wait: "done", recheck: "done", send: "active" }),
      reason:
        email.newSources.length > 0
          ? `New or updated sources while waiting: ${email.newSources.join(", ")}`
          : "No source changed while waiting; the email cites what the docs say now.",
    };
  }
  const email = emailFact.value as OutreachEmail;
  const mailFact = run.fact("mail");
  if (!mailFact) {
    const reply = run.outcome("mail.send", stepOf(emailFact));
    if (reply && (isTurnedDown(reply) || reply.kind === "resolved"))
      return stopped({ reason: reply.message }, "failed");
    if (reply?.kind === "redirected")
      return stopped({ reason: `A person redirected the run: "${redirect}". The draft is left for them.` });
    return run.callUnlessFailed(stepOf(emailFact), `The email to ${email.to} could not be sent`, {
      tool: "mail.send",
      args: { to: email.to, subject: email.subject, body: email.body },
      resultKey: "mail",
      planStep: "send",
      reasoning:
        email.newSources.length > 0
          ? `The docs changed while the agent waited (${email.newSources.join(", ")}); the email cites the current sources.`
          : "The docs are unchanged since the draft; the email cites them.",
      uncertainty: email.newSources.length > 0 ? "low" : "medium",
      evidence: [...(ticketFact ? ["ticket"] : []), "recheck", "email"],
    });
  }
  const sent = mailFact.value as Partial<SentMail>;
  return run.complete(plan({ research: "done", draft: "done", wait: "done", recheck: "done", send: "done" }), {
    sent: true,
    ...base,
    messageId: sent.messageId ?? null,
    draftId: draft.draftId ?? null,
    sources: email.sources.map((s) => s.id),
    newSources: email.newSources,
  });
}

export const outreachAgent = defineAgent({
  slug: "outreach-agent",
  label: "1",
  source: import.meta.url, // its code is part of its version: an edit here or in a local import is a new version
  name: "Outreach agent",
  description:
    "Writes to a customer from the docs: researches, saves a draft, waits days for a source (a durable timer), researches again and sends once a person approves.",
  instructions: INSTRUCTIONS,
  input: outreachAgentInputSchema,
  tools: ["tickets.get", "docs.search", "drafts.create", "mail.send"],
  gates: { "mail.send": { queue: "outreach" } },
  plan: plan.steps,
  maxSteps: 40,
  // Ada asked about exports; the release note for scheduled exports is the source worth waiting for.
  exampleInput: { to: "ada@example.com", query: "scheduled exports", waitMs: 30_000 },
  policy: ({ state }) => decide(outreachAgentInputSchema.parse(state.input), readRun(state)),
});
