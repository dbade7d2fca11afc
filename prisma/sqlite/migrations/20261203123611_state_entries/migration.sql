-- CreateTable
CREATE TABLE "StateEntry" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "key" TEXT,
    "value" TEXT NOT NULL,

    PRIMARY KEY ("runId", "seq"),
    CONSTRAINT "StateEntry_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Checkpoint" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "entrySeq" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("runId", "seq"),
    CONSTRAINT "Checkpoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Checkpoint" ("createdAt", "runId", "seq", "state", "step") SELECT "createdAt", "runId", "seq", "state", "step" FROM "Checkpoint";
DROP TABLE "Checkpoint";
ALTER TABLE "new_Checkpoint" RENAME TO "Checkpoint";
CREATE TABLE "new_Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentSlug" TEXT NOT NULL,
    "agentVersion" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "stateSeq" INTEGER NOT NULL DEFAULT 0,
    "entrySeq" INTEGER NOT NULL DEFAULT 0,
    "eventSeq" INTEGER NOT NULL DEFAULT 0,
    "idempotencyKey" TEXT,
    "startedBy" TEXT,
    "leaseOwner" TEXT,
    "leaseEpoch" INTEGER NOT NULL DEFAULT 0,
    "leaseExpiresAt" DATETIME,
    "wakeAt" DATETIME,
    "waitingFor" TEXT,
    "error" TEXT,
    "parentRunId" TEXT,
    "runnableAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "compactedAt" DATETIME
);
INSERT INTO "new_Run" ("agentSlug", "agentVersion", "compactedAt", "createdAt", "error", "eventSeq", "id", "idempotencyKey", "input", "leaseEpoch", "leaseExpiresAt", "leaseOwner", "parentRunId", "runnableAt", "startedBy", "state", "stateSeq", "status", "updatedAt", "waitingFor", "wakeAt") SELECT "agentSlug", "agentVersion", "compactedAt", "createdAt", "error", "eventSeq", "id", "idempotencyKey", "input", "leaseEpoch", "leaseExpiresAt", "leaseOwner", "parentRunId", "runnableAt", "startedBy", "state", "stateSeq", "status", "updatedAt", "waitingFor", "wakeAt" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE UNIQUE INDEX "Run_idempotencyKey_key" ON "Run"("idempotencyKey");
CREATE INDEX "Run_status_leaseExpiresAt_idx" ON "Run"("status", "leaseExpiresAt");
CREATE INDEX "Run_status_wakeAt_idx" ON "Run"("status", "wakeAt");
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");
CREATE INDEX "Run_status_createdAt_idx" ON "Run"("status", "createdAt");
CREATE INDEX "Run_agentSlug_createdAt_idx" ON "Run"("agentSlug", "createdAt");
CREATE INDEX "Run_runnableAt_idx" ON "Run"("runnableAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
