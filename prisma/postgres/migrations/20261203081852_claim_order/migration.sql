-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "runnableAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Run_runnableAt_idx" ON "Run"("runnableAt");

-- Backfill (see Run.runnableAt): a held run comes back when its lease expires, queued work is
-- runnable since its last change, a parked run at its timer, anything else only by an event.
UPDATE "Run" SET "runnableAt" = CASE
  WHEN "status" IN ('QUEUED', 'RUNNING') AND "leaseOwner" IS NOT NULL THEN "leaseExpiresAt"
  WHEN "status" IN ('QUEUED', 'RUNNING') THEN "updatedAt"
  WHEN "status" IN ('SLEEPING', 'WAITING_EVENT', 'WAITING_APPROVAL', 'NEEDS_ATTENTION') THEN "wakeAt"
  ELSE NULL
END;
