"use server";
// Server actions of the Evals pages. Importing a dataset replaces the cases of a dataset with that
// name, so it is an admin's act (admin:manage), audited with the import (lib/commands/import-dataset.ts); the
// CLI imports through the same storage function, unaudited.
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { importDataset } from "@/lib/commands/import-dataset";
import { DatasetParseError, parseCasesJsonl } from "@/lib/evals/jsonl";
import { AppError } from "@/lib/runtime/errors";

/** Next refuses server-action bodies over 1 MB before the action runs; stay under it with a clear message. */
const MAX_JSONL_CHARS = 900_000;

const importDatasetSchema = z.object({
  name: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "Use lower-case letters, digits, '.', '_' or '-' (up to 64)."),
  description: z.string().trim().max(500, "Keep the description under 500 characters.").optional().default(""),
  jsonl: z
    .string()
    .min(1, "Paste the dataset or choose a .jsonl file.")
    .max(MAX_JSONL_CHARS, "The file is too large to upload here (900 KB at most); import it with the CLI."),
});
export type ImportDatasetInput = z.input<typeof importDatasetSchema>;

/** {name, description?, jsonl} → the imported dataset's name, version and case count. Nothing changes if any line is invalid. */
export const importDatasetAction = defineAction(
  { schema: importDatasetSchema, scope: "admin:manage", audit: { action: "evals.datasets.import", byHandler: true } },
  async ({ name, description, jsonl }, { user, db, revalidatePath }) => {
    assertValidLines(jsonl);
    const dataset = await importDataset(
      { db },
      { jsonl, name, description: description || undefined, source: "console upload", by: user.email },
    );
    revalidatePath("/evals/datasets");
    revalidatePath(`/evals/datasets/${encodeURIComponent(dataset.name)}`);
    return { name: dataset.name, version: dataset.version, caseCount: dataset.caseCount };
  },
);

// The storage function also validates, but folds the errors into one sentence; the form lists every
// offending line, so it gets them one by one under the "jsonl" field.
function assertValidLines(jsonl: string): void {
  try {
    parseCasesJsonl(jsonl);
  } catch (error) {
    if (!(error instanceof DatasetParseError)) throw error;
    const count = error.errors.length;
    throw new AppError("INVALID_INPUT", {
      message: error.message,
      userMessage: `${count} line${count === 1 ? " is" : "s are"} invalid. Nothing was imported.`,
      fieldErrors: { jsonl: error.errors.slice(0, 50).map((e) => `Line ${e.line}: ${e.message}`) },
    });
  }
}
