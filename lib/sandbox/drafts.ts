import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/lib/db";
import { sandboxError } from "./errors";
import { recordEffect, type Caller } from "./ledger";

// Drafts (an email, a ticket reply, a note) change nothing outside: nobody sees them until someone sends
// them. Creating one is idempotent by key: the draft id is derived from the Idempotency-Key, so the same
// key returns the same draft and writes nothing new; the same key with other content is a 409.

export const createDraftSchema = z.strictObject({
  kind: z.enum(["email", "reply", "note"]),
  content: z.union([z.string().min(1).max(50_000), z.record(z.string(), z.unknown())]),
});
export type CreateDraftInput = z.infer<typeof createDraftSchema>;

export const draftIdForKey = (key: string) => `dft_${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;

export async function createDraft(
  db: Db,
  input: CreateDraftInput & { idempotencyKey: string; caller: Caller },
): Promise<{ draftId: string; replayed: boolean }> {
  const draftId = draftIdForKey(input.idempotencyKey);
  const content = JSON.stringify(input.content);
  const replay = (existing: { kind: string; content: string }) => {
    if (existing.kind !== input.kind || existing.content !== content) {
      throw sandboxError(
        "CONFLICT",
        `Idempotency-Key '${input.idempotencyKey}' was already used for a different draft; use a new key.`,
      );
    }
    return { draftId, replayed: true };
  };
  const existing = await db.sandboxDraft.findUnique({ where: { id: draftId } });
  if (existing) return replay(existing);
  try {
    await db.$transaction(async (tx) => {
      await tx.sandboxDraft.create({ data: { id: draftId, kind: input.kind, content, runId: input.caller.runId } });
      await recordEffect(tx, {
        system: "drafts",
        action: "create",
        caller: { runId: input.caller.runId, operationId: input.caller.operationId ?? input.idempotencyKey },
        data: { draftId, kind: input.kind, idempotencyKey: input.idempotencyKey },
      });
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "P2002") throw error;
    const winner = await db.sandboxDraft.findUnique({ where: { id: draftId } });
    if (!winner) throw error;
    return replay(winner);
  }
  return { draftId, replayed: false };
}
