-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL PRIMARY KEY,
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

-- CreateTable
CREATE TABLE "ScheduleFire" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scheduleId" TEXT NOT NULL,
    "tick" DATETIME NOT NULL,
    "outcome" TEXT NOT NULL,
    "runId" TEXT,
    "detail" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firedAt" DATETIME,
    CONSTRAINT "ScheduleFire_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "Schedule" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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
