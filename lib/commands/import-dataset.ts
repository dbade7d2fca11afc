import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import type { DbTransaction } from "@/lib/db";
import { DatasetParseError, datasetVersion, parseCasesJsonl } from "@/lib/evals/jsonl";
import { newEvalId } from "@/lib/evals/records";
import type { EvalCaseSpec } from "@/lib/evals/spec";
import { getDataset, type DatasetDetail } from "@/lib/queries/eval-records";
import { AppError } from "@/lib/runtime/errors";

// A person importing an eval dataset (the console's Evals pages): the dataset's cases are replaced and its
// "evals.datasets.import" audit row (version, case count) written in one transaction. Nothing changes if
// any line is invalid.

export type ImportDatasetCommand = {
  jsonl: string;
  name: string;
  description?: string;
  source?: string;
  by: string;
  via?: string;
};

export async function importDataset(deps: { db: Db }, command: ImportDatasetCommand): Promise<DatasetDetail> {
  const cases = parseDatasetJsonl(command.jsonl);
  const { id } = await deps.db.$transaction(async (tx) => {
    const stored = await replaceDataset(tx, cases, {
      name: command.name,
      description: command.description,
      source: command.source,
    });
    await auditChange(tx, command, "evals.datasets.import", {
      target: command.name,
      data: { version: stored.version, caseCount: cases.length },
    });
    return stored;
  });
  return getDataset(id, deps.db);
}

/** The cases of a JSONL dataset; INVALID_INPUT (the first errors in one sentence) when a line is invalid or there is none. */
function parseDatasetJsonl(text: string): EvalCaseSpec[] {
  let cases: EvalCaseSpec[];
  try {
    cases = parseCasesJsonl(text);
  } catch (error) {
    if (error instanceof DatasetParseError) {
      throw new AppError("INVALID_INPUT", {
        message: error.message,
        userMessage: `The dataset has errors: ${error.errors
          .slice(0, 5)
          .map((e) => `line ${e.line}: ${e.message}`)
          .join("; ")}`,
      });
    }
    throw error;
  }
  if (cases.length === 0)
    throw new AppError("INVALID_INPUT", { message: "empty dataset", userMessage: "The dataset has no cases." });
  return cases;
}

/** Within a transaction: create the dataset `name`, or replace its cases. The version is the cases' content hash. */
async function replaceDataset(
  tx: DbTransaction,
  cases: EvalCaseSpec[],
  opts: { name: string; description?: string; source?: string },
): Promise<{ id: string; version: string }> {
  const version = datasetVersion(cases);
  const existing = await tx.evalDataset.findFirst({ where: { name: opts.name } });
  const datasetId = existing?.id ?? newEvalId("evd");
  if (existing) {
    await tx.evalCase.deleteMany({ where: { datasetId } });
    await tx.evalDataset.update({
      where: { id: datasetId },
      data: { version, description: opts.description ?? existing.description, source: opts.source ?? existing.source },
    });
  } else {
    await tx.evalDataset.create({
      data: {
        id: datasetId,
        name: opts.name,
        description: opts.description ?? "",
        version,
        source: opts.source ?? null,
      },
    });
  }
  await tx.evalCase.createMany({
    data: cases.map((c, position) => ({
      id: newEvalId("evc"),
      datasetId,
      caseId: c.id,
      position,
      agent: c.agent,
      title: c.title,
      tags: JSON.stringify(c.tags),
      spec: JSON.stringify(c),
    })),
  });
  return { id: datasetId, version };
}
