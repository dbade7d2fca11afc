-- CreateIndex
CREATE INDEX "DecisionPacket_status_decidedAt_idx" ON "DecisionPacket"("status", "decidedAt");
