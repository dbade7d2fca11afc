-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_DecisionPacket" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "args" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "requestedBy" TEXT NOT NULL,
    "packet" TEXT NOT NULL,
    "queue" TEXT NOT NULL DEFAULT 'default',
    "assignee" TEXT,
    "requiredApprovals" INTEGER NOT NULL DEFAULT 1,
    "onExpire" TEXT NOT NULL DEFAULT 'reject',
    "expiresAt" DATETIME,
    "decision" TEXT,
    "decidedBy" TEXT,
    "decidedAt" DATETIME,
    "usedAt" DATETIME,
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "capability" TEXT,
    "impactRank" INTEGER NOT NULL DEFAULT 3,
    "changedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "DecisionPacket_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_DecisionPacket" ("args", "assignee", "createdAt", "decidedAt", "decidedBy", "decision", "digest", "expiresAt", "id", "kind", "onExpire", "packet", "queue", "requestedBy", "requiredApprovals", "runId", "status", "step", "tool", "usedAt", "version") SELECT "args", "assignee", "createdAt", "decidedAt", "decidedBy", "decision", "digest", "expiresAt", "id", "kind", "onExpire", "packet", "queue", "requestedBy", "requiredApprovals", "runId", "status", "step", "tool", "usedAt", "version" FROM "DecisionPacket";
DROP TABLE "DecisionPacket";
ALTER TABLE "new_DecisionPacket" RENAME TO "DecisionPacket";
CREATE INDEX "DecisionPacket_status_queue_idx" ON "DecisionPacket"("status", "queue");
CREATE INDEX "DecisionPacket_runId_idx" ON "DecisionPacket"("runId");
CREATE INDEX "DecisionPacket_status_createdAt_id_idx" ON "DecisionPacket"("status", "createdAt", "id");
CREATE INDEX "DecisionPacket_status_expiresAt_createdAt_id_idx" ON "DecisionPacket"("status", "expiresAt", "createdAt", "id");
CREATE INDEX "DecisionPacket_status_impactRank_expiresAt_createdAt_id_idx" ON "DecisionPacket"("status", "impactRank", "expiresAt", "createdAt", "id");
CREATE INDEX "DecisionPacket_status_assignee_idx" ON "DecisionPacket"("status", "assignee");
CREATE INDEX "DecisionPacket_status_tool_idx" ON "DecisionPacket"("status", "tool");
CREATE INDEX "DecisionPacket_status_requestedBy_idx" ON "DecisionPacket"("status", "requestedBy");
CREATE INDEX "DecisionPacket_status_capability_idx" ON "DecisionPacket"("status", "capability");
CREATE INDEX "DecisionPacket_changedAt_idx" ON "DecisionPacket"("changedAt");
CREATE INDEX "DecisionPacket_decidedAt_id_idx" ON "DecisionPacket"("decidedAt", "id");
CREATE INDEX "DecisionPacket_decidedBy_decidedAt_idx" ON "DecisionPacket"("decidedBy", "decidedAt");
CREATE INDEX "DecisionPacket_tool_decidedAt_idx" ON "DecisionPacket"("tool", "decidedAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Existing packets: their last write is their decision, or their creation.
UPDATE "DecisionPacket" SET "changedAt" = COALESCE("decidedAt", "createdAt");
