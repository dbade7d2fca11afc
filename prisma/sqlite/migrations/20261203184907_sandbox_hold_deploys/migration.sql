-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_SandboxFault" (
    "system" TEXT NOT NULL PRIMARY KEY,
    "latencyMs" INTEGER NOT NULL DEFAULT 0,
    "errorRate" REAL NOT NULL DEFAULT 0,
    "timeoutAfterApply" INTEGER NOT NULL DEFAULT 0,
    "holdMs" INTEGER NOT NULL DEFAULT 10000,
    "holdDeploys" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_SandboxFault" ("errorRate", "holdMs", "latencyMs", "system", "timeoutAfterApply") SELECT "errorRate", "holdMs", "latencyMs", "system", "timeoutAfterApply" FROM "SandboxFault";
DROP TABLE "SandboxFault";
ALTER TABLE "new_SandboxFault" RENAME TO "SandboxFault";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
