-- AlterTable
ALTER TABLE "AgentVersion" ADD COLUMN "label" TEXT;
