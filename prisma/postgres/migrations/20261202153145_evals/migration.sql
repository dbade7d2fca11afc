-- CreateTable
CREATE TABLE "EvalDataset" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "version" TEXT NOT NULL,
    "source" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EvalDataset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvalCase" (
    "id" TEXT NOT NULL,
    "datasetId" TEXT NOT NULL,
    "caseId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "agent" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "tags" TEXT NOT NULL DEFAULT '[]',
    "spec" TEXT NOT NULL,

    CONSTRAINT "EvalCase_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvalRun" (
    "id" TEXT NOT NULL,
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
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "EvalRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvalResult" (
    "id" TEXT NOT NULL,
    "evalRunId" TEXT NOT NULL,
    "caseId" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "fault" TEXT NOT NULL,
    "passed" BOOLEAN NOT NULL,
    "scores" TEXT NOT NULL,
    "checks" TEXT NOT NULL DEFAULT '[]',
    "runId" TEXT,
    "runStatus" TEXT,
    "trace" TEXT NOT NULL DEFAULT '[]',
    "ledger" TEXT NOT NULL DEFAULT '[]',
    "output" TEXT,
    "tokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "wallMs" INTEGER NOT NULL DEFAULT 0,
    "humanWaitMs" INTEGER NOT NULL DEFAULT 0,
    "machineMs" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "EvalResult_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "EvalDataset_name_key" ON "EvalDataset"("name");

-- CreateIndex
CREATE INDEX "EvalCase_datasetId_position_idx" ON "EvalCase"("datasetId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "EvalCase_datasetId_caseId_key" ON "EvalCase"("datasetId", "caseId");

-- CreateIndex
CREATE INDEX "EvalRun_startedAt_idx" ON "EvalRun"("startedAt");

-- CreateIndex
CREATE INDEX "EvalRun_datasetName_startedAt_idx" ON "EvalRun"("datasetName", "startedAt");

-- CreateIndex
CREATE INDEX "EvalResult_evalRunId_position_idx" ON "EvalResult"("evalRunId", "position");

-- CreateIndex
CREATE INDEX "EvalResult_caseId_idx" ON "EvalResult"("caseId");

-- AddForeignKey
ALTER TABLE "EvalCase" ADD CONSTRAINT "EvalCase_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "EvalDataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvalRun" ADD CONSTRAINT "EvalRun_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "EvalDataset"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvalResult" ADD CONSTRAINT "EvalResult_evalRunId_fkey" FOREIGN KEY ("evalRunId") REFERENCES "EvalRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
