import { z } from "zod";
import type { Db } from "@/lib/db";
import { newId } from "./ids";
import { recordEffect, type Caller } from "./ledger";

// The mail service: no idempotency key — sending twice sends two emails (and writes two ledger rows).
// What makes it reconcilable is the sent folder: a message can be looked up by the operation id it was
// sent with (`X-Tether-Operation-Id`), so a caller unsure whether a send happened can look before resending.

export const sendMailSchema = z.strictObject({
  to: z.email(),
  subject: z.string().trim().min(1).max(300),
  body: z.string().min(1).max(50_000),
});
export type SendMailInput = z.infer<typeof sendMailSchema>;

export type SentMail = { messageId: string; to: string; subject: string; sentAt: string };
export type SentMessage = SentMail & { operationId: string | null; body: string };

export async function sendMail(db: Db, input: SendMailInput & { caller: Caller }): Promise<SentMail> {
  const sentAt = new Date();
  const message = { messageId: newId("msg"), to: input.to, subject: input.subject, sentAt: sentAt.toISOString() };
  await db.$transaction(async (tx) => {
    await tx.sandboxMail.create({
      data: {
        id: message.messageId,
        operationId: input.caller.operationId,
        to: input.to,
        subject: input.subject,
        body: input.body,
        sentAt,
      },
    });
    await recordEffect(tx, { system: "mail", action: "send", caller: input.caller, data: message, at: sentAt });
  });
  return message;
}

export const findSentMailSchema = z.object({ operationId: z.string().trim().min(1).max(255) });

/** The first message sent with this operation id, or null if none was. */
export async function findSentMail(db: Db, operationId: string): Promise<SentMessage | null> {
  const row = await db.sandboxMail.findFirst({ where: { operationId }, orderBy: [{ sentAt: "asc" }, { id: "asc" }] });
  if (!row) return null;
  return {
    messageId: row.id,
    operationId: row.operationId,
    to: row.to,
    subject: row.subject,
    body: row.body,
    sentAt: row.sentAt.toISOString(),
  };
}
