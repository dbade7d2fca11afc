import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { getDataset, parseDatasetJsonl, replaceDataset, type DatasetDetail } from "@/lib/evals/queries";

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
