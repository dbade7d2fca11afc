-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "compactedAt" TIMESTAMP(3);
