import { z } from "zod";
import type { Db } from "@/lib/db";
import { sandboxError } from "./errors";

// The knowledge base agents research from. Reads for agents; `putDoc` is how a test or an eval changes
// the world under a waiting run (edit a source, or publish a new one). Edits are world set-up, not
// effects of a run, so they write no ledger row.

export const findDocsSchema = z.object({ query: z.string().trim().max(200).optional() });

export const docIdSchema = z
  .string()
  .regex(/^[\w.-]{1,100}$/, "A doc id is 1 to 100 letters, digits, '_', '.' or '-'.");

export const putDocSchema = z.strictObject({
  title: z.string().trim().min(1).max(200).optional(),
  body: z.string().min(1).max(100_000),
});
export type PutDocInput = z.infer<typeof putDocSchema>;

export type Doc = { id: string; title: string; body: string; updatedAt: string };

const toDoc = (row: { id: string; title: string; body: string; updatedAt: Date }): Doc => ({
  id: row.id,
  title: row.title,
  body: row.body,
  updatedAt: row.updatedAt.toISOString(),
});

/** Docs whose title or body contains the query, case-insensitively (all docs without a query). */
export async function findDocs(db: Db, query?: string): Promise<Doc[]> {
  const rows = await db.sandboxDoc.findMany({ orderBy: { id: "asc" } });
  const needle = query?.toLowerCase();
  return rows.filter((row) => !needle || `${row.title}\n${row.body}`.toLowerCase().includes(needle)).map(toDoc);
}

/** Changes a doc, or publishes a new one (which needs a title). */
export async function putDoc(db: Db, id: string, input: PutDocInput): Promise<{ doc: Doc; created: boolean }> {
  const existing = await db.sandboxDoc.findUnique({ where: { id } });
  if (existing) {
    const row = await db.sandboxDoc.update({
      where: { id },
      data: { body: input.body, ...(input.title ? { title: input.title } : {}) },
    });
    return { doc: toDoc(row), created: false };
  }
  if (!input.title)
    throw sandboxError("INVALID_INPUT", `Doc '${id}' does not exist yet: a new doc needs a title.`, {
      title: ["Required for a new doc."],
    });
  const row = await db.sandboxDoc.create({ data: { id, title: input.title, body: input.body } });
  return { doc: toDoc(row), created: true };
}
