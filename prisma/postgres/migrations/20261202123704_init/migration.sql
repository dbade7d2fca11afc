-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "agentSlug" TEXT NOT NULL,
    "agentVersion" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "stateSeq" INTEGER NOT NULL DEFAULT 0,
    "eventSeq" INTEGER NOT NULL DEFAULT 0,
    "idempotencyKey" TEXT,
    "startedBy" TEXT,
    "leaseOwner" TEXT,
    "leaseEpoch" INTEGER NOT NULL DEFAULT 0,
    "leaseExpiresAt" TIMESTAMP(3),
    "wakeAt" TIMESTAMP(3),
    "waitingFor" TEXT,
    "error" TEXT,
    "parentRunId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Checkpoint" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Checkpoint_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "TraceEvent" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TraceEvent_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "EffectIntent" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "args" TEXT NOT NULL,
    "decision" TEXT,
    "semantics" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "result" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "EffectIntent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DecisionPacket" (
    "id" TEXT NOT NULL,
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
    "expiresAt" TIMESTAMP(3),
    "decision" TEXT,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "usedAt" TIMESTAMP(3),
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DecisionPacket_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PacketApproval" (
    "packetId" TEXT NOT NULL,
    "approver" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PacketApproval_pkey" PRIMARY KEY ("packetId","approver")
);

-- CreateTable
CREATE TABLE "Signal" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "dedupKey" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "consumedAt" TIMESTAMP(3),

    CONSTRAINT "Signal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Permission" (
    "id" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "step" TEXT NOT NULL DEFAULT '*',
    "effect" TEXT NOT NULL,
    "conditions" TEXT NOT NULL DEFAULT '[]',
    "approvals" INTEGER NOT NULL DEFAULT 1,
    "onExpire" TEXT NOT NULL DEFAULT 'reject',
    "queue" TEXT NOT NULL DEFAULT 'default',
    "ttlSeconds" INTEGER,
    "version" INTEGER NOT NULL DEFAULT 1,
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Permission_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PermissionChange" (
    "id" TEXT NOT NULL,
    "permissionId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "changedBy" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PermissionChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Run_idempotencyKey_key" ON "Run"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Run_status_leaseExpiresAt_idx" ON "Run"("status", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "Run_status_wakeAt_idx" ON "Run"("status", "wakeAt");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");

-- CreateIndex
CREATE INDEX "EffectIntent_runId_status_idx" ON "EffectIntent"("runId", "status");

-- CreateIndex
CREATE INDEX "DecisionPacket_status_queue_idx" ON "DecisionPacket"("status", "queue");

-- CreateIndex
CREATE INDEX "DecisionPacket_runId_idx" ON "DecisionPacket"("runId");

-- CreateIndex
CREATE INDEX "Signal_runId_consumedAt_idx" ON "Signal"("runId", "consumedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Signal_runId_dedupKey_key" ON "Signal"("runId", "dedupKey");

-- CreateIndex
CREATE UNIQUE INDEX "Permission_agent_tool_step_key" ON "Permission"("agent", "tool", "step");

-- CreateIndex
CREATE INDEX "PermissionChange_permissionId_version_idx" ON "PermissionChange"("permissionId", "version");

-- AddForeignKey
ALTER TABLE "Checkpoint" ADD CONSTRAINT "Checkpoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TraceEvent" ADD CONSTRAINT "TraceEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EffectIntent" ADD CONSTRAINT "EffectIntent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DecisionPacket" ADD CONSTRAINT "DecisionPacket_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PacketApproval" ADD CONSTRAINT "PacketApproval_packetId_fkey" FOREIGN KEY ("packetId") REFERENCES "DecisionPacket"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Signal" ADD CONSTRAINT "Signal_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
