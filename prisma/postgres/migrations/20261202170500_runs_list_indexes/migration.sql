-- CreateIndex
CREATE INDEX "Run_status_createdAt_idx" ON "Run"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Run_agentSlug_createdAt_idx" ON "Run"("agentSlug", "createdAt");
