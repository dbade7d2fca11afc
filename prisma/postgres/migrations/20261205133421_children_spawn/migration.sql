-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "spawnedAtStep" INTEGER,
ADD COLUMN     "spawnedByRunId" TEXT;

-- CreateIndex
CREATE INDEX "Run_spawnedByRunId_idx" ON "Run"("spawnedByRunId");
