-- CreateTable
CREATE TABLE "Workspace" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Membership" (
    "userId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("userId", "workspaceId"),
    CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Membership_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ApiToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "userId" TEXT,
    "expiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_ApiToken" ("createdAt", "createdBy", "expiresAt", "id", "lastUsedAt", "name", "prefix", "revokedAt", "scopes", "tokenHash", "userId") SELECT "createdAt", "createdBy", "expiresAt", "id", "lastUsedAt", "name", "prefix", "revokedAt", "scopes", "tokenHash", "userId" FROM "ApiToken";
DROP TABLE "ApiToken";
ALTER TABLE "new_ApiToken" RENAME TO "ApiToken";
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");
CREATE INDEX "ApiToken_userId_idx" ON "ApiToken"("userId");
CREATE TABLE "new_AuditLog" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT,
    "data" TEXT NOT NULL DEFAULT '{}',
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_AuditLog" ("action", "actor", "at", "data", "id", "target") SELECT "action", "actor", "at", "data", "id", "target" FROM "AuditLog";
DROP TABLE "AuditLog";
ALTER TABLE "new_AuditLog" RENAME TO "AuditLog";
CREATE INDEX "AuditLog_actor_at_idx" ON "AuditLog"("actor", "at");
CREATE INDEX "AuditLog_target_idx" ON "AuditLog"("target");
CREATE INDEX "AuditLog_at_idx" ON "AuditLog"("at");
CREATE TABLE "new_DecisionLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "packetId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "usedAt" DATETIME,
    "usedFor" TEXT
);
INSERT INTO "new_DecisionLink" ("createdAt", "digest", "expiresAt", "id", "packetId", "usedAt", "usedFor", "userId") SELECT "createdAt", "digest", "expiresAt", "id", "packetId", "usedAt", "usedFor", "userId" FROM "DecisionLink";
DROP TABLE "DecisionLink";
ALTER TABLE "new_DecisionLink" RENAME TO "DecisionLink";
CREATE INDEX "DecisionLink_packetId_idx" ON "DecisionLink"("packetId");
CREATE TABLE "new_DecisionPacket" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
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
INSERT INTO "new_DecisionPacket" ("args", "assignee", "capability", "changedAt", "createdAt", "decidedAt", "decidedBy", "decision", "digest", "expiresAt", "id", "impactRank", "kind", "onExpire", "packet", "queue", "requestedBy", "requiredApprovals", "runId", "status", "step", "tool", "usedAt", "version") SELECT "args", "assignee", "capability", "changedAt", "createdAt", "decidedAt", "decidedBy", "decision", "digest", "expiresAt", "id", "impactRank", "kind", "onExpire", "packet", "queue", "requestedBy", "requiredApprovals", "runId", "status", "step", "tool", "usedAt", "version" FROM "DecisionPacket";
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
CREATE INDEX "DecisionPacket_status_decidedAt_idx" ON "DecisionPacket"("status", "decidedAt");
CREATE INDEX "DecisionPacket_decidedBy_decidedAt_idx" ON "DecisionPacket"("decidedBy", "decidedAt");
CREATE INDEX "DecisionPacket_tool_decidedAt_idx" ON "DecisionPacket"("tool", "decidedAt");
CREATE TABLE "new_DecisionQueue" (
    "name" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "roles" TEXT NOT NULL DEFAULT '[]',
    "people" TEXT NOT NULL DEFAULT '[]',
    "updatedBy" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("workspaceId", "name")
);
INSERT INTO "new_DecisionQueue" ("name", "people", "roles", "updatedAt", "updatedBy") SELECT "name", "people", "roles", "updatedAt", "updatedBy" FROM "DecisionQueue";
DROP TABLE "DecisionQueue";
ALTER TABLE "new_DecisionQueue" RENAME TO "DecisionQueue";
CREATE TABLE "new_EvalDataset" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "version" TEXT NOT NULL,
    "source" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_EvalDataset" ("createdAt", "description", "id", "name", "source", "updatedAt", "version") SELECT "createdAt", "description", "id", "name", "source", "updatedAt", "version" FROM "EvalDataset";
DROP TABLE "EvalDataset";
ALTER TABLE "new_EvalDataset" RENAME TO "EvalDataset";
CREATE UNIQUE INDEX "EvalDataset_workspaceId_name_key" ON "EvalDataset"("workspaceId", "name");
CREATE TABLE "new_EvalRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "datasetId" TEXT,
    "datasetName" TEXT NOT NULL,
    "datasetVersion" TEXT NOT NULL,
    "codeVersion" TEXT NOT NULL,
    "agentVersions" TEXT NOT NULL,
    "policy" TEXT NOT NULL,
    "faults" TEXT NOT NULL,
    "caseFilter" TEXT,
    "status" TEXT NOT NULL,
    "scores" TEXT NOT NULL DEFAULT '{}',
    "thresholds" TEXT NOT NULL DEFAULT '{}',
    "failures" TEXT NOT NULL DEFAULT '[]',
    "caseCount" INTEGER NOT NULL DEFAULT 0,
    "trialCount" INTEGER NOT NULL DEFAULT 0,
    "passedCount" INTEGER NOT NULL DEFAULT 0,
    "durationMs" INTEGER,
    "reportPath" TEXT,
    "error" TEXT,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "EvalRun_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "EvalDataset" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_EvalRun" ("agentVersions", "caseCount", "caseFilter", "codeVersion", "datasetId", "datasetName", "datasetVersion", "durationMs", "error", "failures", "faults", "finishedAt", "id", "passedCount", "policy", "reportPath", "scores", "startedAt", "status", "thresholds", "trialCount") SELECT "agentVersions", "caseCount", "caseFilter", "codeVersion", "datasetId", "datasetName", "datasetVersion", "durationMs", "error", "failures", "faults", "finishedAt", "id", "passedCount", "policy", "reportPath", "scores", "startedAt", "status", "thresholds", "trialCount" FROM "EvalRun";
DROP TABLE "EvalRun";
ALTER TABLE "new_EvalRun" RENAME TO "EvalRun";
CREATE INDEX "EvalRun_startedAt_idx" ON "EvalRun"("startedAt");
CREATE INDEX "EvalRun_datasetName_startedAt_idx" ON "EvalRun"("datasetName", "startedAt");
CREATE TABLE "new_NotificationChannel" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "queue" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "secret" TEXT,
    "events" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabledAt" DATETIME,
    "disabledBy" TEXT
);
INSERT INTO "new_NotificationChannel" ("createdAt", "createdBy", "disabledAt", "disabledBy", "events", "id", "kind", "queue", "secret", "target") SELECT "createdAt", "createdBy", "disabledAt", "disabledBy", "events", "id", "kind", "queue", "secret", "target" FROM "NotificationChannel";
DROP TABLE "NotificationChannel";
ALTER TABLE "new_NotificationChannel" RENAME TO "NotificationChannel";
CREATE INDEX "NotificationChannel_queue_idx" ON "NotificationChannel"("queue");
CREATE TABLE "new_Permission" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
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
INSERT INTO "new_Permission" ("agent", "approvals", "capabilities", "conditions", "effect", "freshEvidence", "id", "onExpire", "queue", "step", "tool", "ttlSeconds", "updatedAt", "updatedBy", "version") SELECT "agent", "approvals", "capabilities", "conditions", "effect", "freshEvidence", "id", "onExpire", "queue", "step", "tool", "ttlSeconds", "updatedAt", "updatedBy", "version" FROM "Permission";
DROP TABLE "Permission";
ALTER TABLE "new_Permission" RENAME TO "Permission";
CREATE UNIQUE INDEX "Permission_workspaceId_agent_tool_step_key" ON "Permission"("workspaceId", "agent", "tool", "step");
CREATE TABLE "new_PermissionChange" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "permissionId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "changedBy" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_PermissionChange" ("after", "at", "before", "changedBy", "id", "permissionId", "version") SELECT "after", "at", "before", "changedBy", "id", "permissionId", "version" FROM "PermissionChange";
DROP TABLE "PermissionChange";
ALTER TABLE "new_PermissionChange" RENAME TO "PermissionChange";
CREATE INDEX "PermissionChange_permissionId_version_idx" ON "PermissionChange"("permissionId", "version");
CREATE TABLE "new_Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
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
    "spawnedByRunId" TEXT,
    "spawnedAtStep" INTEGER,
    "runnableAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "compactedAt" DATETIME
);
INSERT INTO "new_Run" ("agentSlug", "agentVersion", "compactedAt", "createdAt", "entrySeq", "error", "eventSeq", "id", "idempotencyKey", "input", "leaseEpoch", "leaseExpiresAt", "leaseOwner", "parentRunId", "runnableAt", "spawnedAtStep", "spawnedByRunId", "startedBy", "state", "stateSeq", "status", "updatedAt", "waitingFor", "wakeAt") SELECT "agentSlug", "agentVersion", "compactedAt", "createdAt", "entrySeq", "error", "eventSeq", "id", "idempotencyKey", "input", "leaseEpoch", "leaseExpiresAt", "leaseOwner", "parentRunId", "runnableAt", "spawnedAtStep", "spawnedByRunId", "startedBy", "state", "stateSeq", "status", "updatedAt", "waitingFor", "wakeAt" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE INDEX "Run_status_leaseExpiresAt_idx" ON "Run"("status", "leaseExpiresAt");
CREATE INDEX "Run_status_wakeAt_idx" ON "Run"("status", "wakeAt");
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");
CREATE INDEX "Run_status_createdAt_idx" ON "Run"("status", "createdAt");
CREATE INDEX "Run_agentSlug_createdAt_idx" ON "Run"("agentSlug", "createdAt");
CREATE INDEX "Run_runnableAt_idx" ON "Run"("runnableAt");
CREATE INDEX "Run_spawnedByRunId_idx" ON "Run"("spawnedByRunId");
CREATE UNIQUE INDEX "Run_workspaceId_idempotencyKey_key" ON "Run"("workspaceId", "idempotencyKey");
CREATE TABLE "new_Schedule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "name" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timeZone" TEXT NOT NULL DEFAULT 'UTC',
    "overlap" TEXT NOT NULL DEFAULT 'skip',
    "catchUpSeconds" INTEGER NOT NULL DEFAULT 0,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "nextFireAt" DATETIME,
    "claimedBy" TEXT,
    "claimedUntil" DATETIME,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Schedule" ("agent", "catchUpSeconds", "claimedBy", "claimedUntil", "createdAt", "createdBy", "cron", "id", "input", "name", "nextFireAt", "overlap", "paused", "timeZone", "updatedAt") SELECT "agent", "catchUpSeconds", "claimedBy", "claimedUntil", "createdAt", "createdBy", "cron", "id", "input", "name", "nextFireAt", "overlap", "paused", "timeZone", "updatedAt" FROM "Schedule";
DROP TABLE "Schedule";
ALTER TABLE "new_Schedule" RENAME TO "Schedule";
CREATE INDEX "Schedule_paused_nextFireAt_idx" ON "Schedule"("paused", "nextFireAt");
CREATE UNIQUE INDEX "Schedule_workspaceId_name_key" ON "Schedule"("workspaceId", "name");
CREATE TABLE "new_ToolRegistration" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL DEFAULT 'default',
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "semantics" TEXT NOT NULL,
    "inputSchema" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "impactTemplate" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "disabledAt" DATETIME,
    "disabledBy" TEXT
);
INSERT INTO "new_ToolRegistration" ("capability", "config", "createdAt", "createdBy", "description", "disabledAt", "disabledBy", "id", "impactTemplate", "inputSchema", "kind", "name", "semantics", "updatedAt") SELECT "capability", "config", "createdAt", "createdBy", "description", "disabledAt", "disabledBy", "id", "impactTemplate", "inputSchema", "kind", "name", "semantics", "updatedAt" FROM "ToolRegistration";
DROP TABLE "ToolRegistration";
ALTER TABLE "new_ToolRegistration" RENAME TO "ToolRegistration";
CREATE UNIQUE INDEX "ToolRegistration_workspaceId_name_key" ON "ToolRegistration"("workspaceId", "name");
CREATE TABLE "new_User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabledAt" DATETIME,
    "instanceAdmin" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_User" ("createdAt", "disabledAt", "email", "id", "name", "passwordHash", "role") SELECT "createdAt", "disabledAt", "email", "id", "name", "passwordHash", "role" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "Workspace_slug_key" ON "Workspace"("slug");

-- CreateIndex
CREATE INDEX "Membership_workspaceId_idx" ON "Membership"("workspaceId");



-- Every deployment starts with one workspace, and what existed before workspaces is its own. The role of a person there
-- stays User.role (lib/workspaces/members.ts). Admins become instance admins (they may create workspaces).
INSERT INTO "Workspace" ("id", "slug", "name") VALUES ('default', 'default', 'Default');
UPDATE "User" SET "instanceAdmin" = 1 WHERE "role" = 'admin';
