import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, type Db } from "@/lib/db";
import { createTemplateDb, createTrialDb } from "@/lib/evals/world";

// A replay never writes where the recordings live: the replayed runs go to a migrated SQLite database
// in a temporary folder (the same template copy a journey eval's trial uses), removed afterwards.

export type ScratchDb = { db: Db; dir: string; close: () => Promise<void> };

export function createScratchDb(prefix = "tether-replay-"): ScratchDb {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const template = createTemplateDb(dir);
  const { url } = createTrialDb(template, dir, "scratch");
  const db = createDb(url);
  return {
    db,
    dir,
    close: async () => {
      await db.$disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
