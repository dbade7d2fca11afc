-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timeZone" TEXT NOT NULL DEFAULT 'UTC',
    "overlap" TEXT NOT NULL DEFAULT 'skip',
    "catchUpSeconds" INTEGER NOT NULL DEFAULT 0,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "nextFireAt" TIMESTAMP(3),
    "claimedBy" TEXT,
    "claimedUntil" TIMESTAMP(3),
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Schedule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ScheduleFire" (
    "id" TEXT NOT NULL,
    "scheduleId" TEXT NOT NULL,
    "tick" TIMESTAMP(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "runId" TEXT,
    "detail" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firedAt" TIMESTAMP(3),

    CONSTRAINT "ScheduleFire_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Schedule_name_key" ON "Schedule"("name");

-- CreateIndex
CREATE INDEX "Schedule_paused_nextFireAt_idx" ON "Schedule"("paused", "nextFireAt");

-- CreateIndex
CREATE INDEX "ScheduleFire_outcome_scheduleId_tick_idx" ON "ScheduleFire"("outcome", "scheduleId", "tick");

-- CreateIndex
CREATE INDEX "ScheduleFire_scheduleId_createdAt_idx" ON "ScheduleFire"("scheduleId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ScheduleFire_scheduleId_tick_key" ON "ScheduleFire"("scheduleId", "tick");

-- AddForeignKey
ALTER TABLE "ScheduleFire" ADD CONSTRAINT "ScheduleFire_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "Schedule"("id") ON DELETE CASCADE ON UPDATE CASCADE;
