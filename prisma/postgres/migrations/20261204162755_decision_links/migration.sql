-- CreateTable
CREATE TABLE "DecisionLink" (
    "id" TEXT NOT NULL,
    "packetId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "usedAt" TIMESTAMP(3),
    "usedFor" TEXT,

    CONSTRAINT "DecisionLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "DecisionLink_packetId_idx" ON "DecisionLink"("packetId");
