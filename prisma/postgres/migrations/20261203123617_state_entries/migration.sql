-- AlterTable
ALTER TABLE "Checkpoint" ADD COLUMN     "entrySeq" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "entrySeq" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "StateEntry" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "key" TEXT,
    "value" TEXT NOT NULL,

    CONSTRAINT "StateEntry_pkey" PRIMARY KEY ("runId","seq")
);

-- AddForeignKey
ALTER TABLE "StateEntry" ADD CONSTRAINT "StateEntry_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
