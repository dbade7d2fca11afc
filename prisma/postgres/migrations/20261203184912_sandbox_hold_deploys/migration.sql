-- AlterTable
ALTER TABLE "SandboxFault" ADD COLUMN     "holdDeploys" BOOLEAN NOT NULL DEFAULT false;
