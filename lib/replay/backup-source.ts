import { importBackup } from "@/lib/backup/import";
import { fileLines } from "@/lib/backup/lines";
import type { RuntimeStore } from "@/lib/runtime";
import { createPrismaStore } from "@/lib/store/prisma-store";
import { createScratchDb } from "./scratch-db";

// `--dataset <file>`: recorded runs from an exported backup (`tether export`, docs/backup.md). The file is
// imported, checked as an import checks it, into a scratch database, which is then read like any store.

export async function openBackupSource(
  file: string,
): Promise<{ store: RuntimeStore; runs: number; close: () => Promise<void> }> {
  const scratch = createScratchDb("tether-replay-dataset-");
  try {
    const report = await importBackup(scratch.db, fileLines(file));
    return { store: createPrismaStore(scratch.db), runs: report.runs.imported, close: scratch.close };
  } catch (error) {
    await scratch.close();
    throw error;
  }
}
