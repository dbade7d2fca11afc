import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import type { SandboxClient } from "./http";
import { sandboxEffect } from "./sandbox-tool";

// Mail: no idempotency key, so a blind retry could send a second email. It is reconcilable instead:
// the sent folder is searched by operation id before a send whose outcome is unknown is repeated.

export const sendMailInputSchema = z.object({
  to: z.string().trim().email("Give the recipient's email address."),
  subject: z.string().trim().min(1, "Give the email a subject.").max(200, "Keep the subject under 200 characters."),
  body: z.string().trim().min(1, "Write the body of the email."),
});

export const sentMailSchema = z.object({
  messageId: z.string(),
  to: z.string(),
  subject: z.string(),
  sentAt: z.string(),
});
export type SentMail = z.infer<typeof sentMailSchema>;

export function mailTools(client: SandboxClient): ToolDefinition[] {
  const send = sandboxEffect(client, {
    name: "mail.send",
    description:
      "Send an email. Not idempotent; a send whose outcome is unknown is looked up in the sent folder before it is repeated.",
    capability: "execute",
    semantics: "reconcilable",
    input: sendMailInputSchema,
    output: sentMailSchema,
    impact: ({ to, subject }) => `emails ${to}: "${subject}"`,
    post: "/mail/send",
    lookup: async (_args, ctx) => {
      const { message } = await client.get<{ message: unknown }>(
        `/mail/sent?operationId=${encodeURIComponent(ctx.operationId)}`,
        ctx,
      );
      return message ? sentMailSchema.parse(message) : null;
    },
    receiptId: (m) => m.messageId,
    // A reviewer may reword the email, not change who receives it.
    editableFields: ["subject", "body"],
  });
  return [send];
}
