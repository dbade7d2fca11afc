-- AlterTable
ALTER TABLE "Permission" ADD COLUMN     "capabilities" TEXT NOT NULL DEFAULT '["read","draft","approve","execute"]',
ADD COLUMN     "freshEvidence" BOOLEAN NOT NULL DEFAULT false;
