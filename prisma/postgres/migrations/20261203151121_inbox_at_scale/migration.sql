-- AlterTable
ALTER TABLE "DecisionPacket" ADD COLUMN     "capability" TEXT,
ADD COLUMN     "changedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "impactRank" INTEGER NOT NULL DEFAULT 3;

-- CreateIndex
CREATE INDEX "DecisionPacket_status_createdAt_id_idx" ON "DecisionPacket"("status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "DecisionPacket_status_expiresAt_createdAt_id_idx" ON "DecisionPacket"("status", "expiresAt", "createdAt", "id");

-- CreateIndex
CREATE INDEX "DecisionPacket_status_impactRank_expiresAt_createdAt_id_idx" ON "DecisionPacket"("status", "impactRank", "expiresAt", "createdAt", "id");

-- CreateIndex
CREATE INDEX "DecisionPacket_status_assignee_idx" ON "DecisionPacket"("status", "assignee");

-- CreateIndex
CREATE INDEX "DecisionPacket_status_tool_idx" ON "DecisionPacket"("status", "tool");

-- CreateIndex
CREATE INDEX "DecisionPacket_status_requestedBy_idx" ON "DecisionPacket"("status", "requestedBy");

-- CreateIndex
CREATE INDEX "DecisionPacket_status_capability_idx" ON "DecisionPacket"("status", "capability");

-- CreateIndex
CREATE INDEX "DecisionPacket_changedAt_idx" ON "DecisionPacket"("changedAt");

-- CreateIndex
CREATE INDEX "DecisionPacket_decidedAt_id_idx" ON "DecisionPacket"("decidedAt", "id");

-- CreateIndex
CREATE INDEX "DecisionPacket_decidedBy_decidedAt_idx" ON "DecisionPacket"("decidedBy", "decidedAt");

-- CreateIndex
CREATE INDEX "DecisionPacket_tool_decidedAt_idx" ON "DecisionPacket"("tool", "decidedAt");

-- Existing packets: their last write is their decision, or their creation.
UPDATE "DecisionPacket" SET "changedAt" = COALESCE("decidedAt", "createdAt");
