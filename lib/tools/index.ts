import type { ToolDefinition } from "@/lib/runtime";
import { deployTools } from "./deploys";
import { docTools } from "./docs";
import { draftTools } from "./drafts";
import { createSandboxClient, type SandboxOptions } from "./http";
import { mailTools } from "./mail";
import { orderTools } from "./orders";
import { paymentTools } from "./payments";
import { ticketTools } from "./tickets";

// The built-in tools: one file per system of the sandbox world, all over HTTP (docs/design.md); what they do
// alike (a read is a GET, an idempotent call sends its key, the ledger entry is the name) is in sandbox-tool.ts.
//
//   tool                    capability  semantics     notes
//   orders.get              read        pure-read     fresh for 5 min
//   orders.history          read        pure-read     fresh for 5 min
//   payments.refund         execute     idempotent    Idempotency-Key = the operation's key; receipt = refundId
//   mail.send               execute     reconcilable  lookup: the sent folder, by operation id
//   drafts.create           draft       idempotent    Idempotency-Key; receipt = draftId
//   deploys.run_migration   execute     unsafe        completion arrives as a deploy.finished signal; its lookup
//                                                     (by run + migration) serves a person's "Check now" only
//   deploys.status          read        pure-read     fresh for 30 s
//   deploys.find            read        pure-read     by run (default: this one) and migration; fresh for 30 s
//   docs.search             read        pure-read     fresh for 1 h
//   tickets.get             read        pure-read     fresh for 10 min

export type BuiltInToolsOptions = SandboxOptions;

export function createBuiltInTools(opts: BuiltInToolsOptions): ToolDefinition[] {
  const client = createSandboxClient(opts);
  return [
    ...orderTools(client),
    ...paymentTools(client),
    ...mailTools(client),
    ...draftTools(client),
    ...deployTools(client),
    ...docTools(client),
    ...ticketTools(client),
  ];
}

export { formatMoney } from "./format";
export { refusedStatus, type SandboxOptions } from "./http";
export type { HttpErrorDetails } from "./http-outcome";
export type { Order, OrderHistory } from "./orders";
export type { Refund } from "./payments";
export type { SentMail } from "./mail";
export type { Draft } from "./drafts";
export type { Deploy, DeployList, DeployStarted } from "./deploys";
export type { Doc, DocSearch } from "./docs";
export type { Ticket } from "./tickets";
