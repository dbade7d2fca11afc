-- AlterTable
ALTER TABLE "Run" ADD COLUMN "spawnedAtStep" INTEGER;
ALTER TABLE "Run" ADD COLUMN "spawnedByRunId" TEXT;

-- CreateIndex
CREATE INDEX "Run_spawnedByRunId_idx" ON "Run"("spawnedByRunId");
