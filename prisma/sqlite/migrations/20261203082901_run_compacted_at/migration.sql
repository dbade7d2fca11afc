-- AlterTable
ALTER TABLE "Run" ADD COLUMN "compactedAt" DATETIME;
