-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Permission" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agent" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "step" TEXT NOT NULL DEFAULT '*',
    "effect" TEXT NOT NULL,
    "conditions" TEXT NOT NULL DEFAULT '[]',
    "capabilities" TEXT NOT NULL DEFAULT '["read","draft","approve","execute"]',
    "freshEvidence" BOOLEAN NOT NULL DEFAULT false,
    "approvals" INTEGER NOT NULL DEFAULT 1,
    "onExpire" TEXT NOT NULL DEFAULT 'reject',
    "queue" TEXT NOT NULL DEFAULT 'default',
    "ttlSeconds" INTEGER,
    "version" INTEGER NOT NULL DEFAULT 1,
    "updatedBy" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Permission" ("agent", "approvals", "conditions", "effect", "id", "onExpire", "queue", "step", "tool", "ttlSeconds", "updatedAt", "updatedBy", "version") SELECT "agent", "approvals", "conditions", "effect", "id", "onExpire", "queue", "step", "tool", "ttlSeconds", "updatedAt", "updatedBy", "version" FROM "Permission";
DROP TABLE "Permission";
ALTER TABLE "new_Permission" RENAME TO "Permission";
CREATE UNIQUE INDEX "Permission_agent_tool_step_key" ON "Permission"("agent", "tool", "step");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
