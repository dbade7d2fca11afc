-- CreateTable
CREATE TABLE "DecisionLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "packetId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "usedAt" DATETIME,
    "usedFor" TEXT
);

-- CreateIndex
CREATE INDEX "DecisionLink_packetId_idx" ON "DecisionLink"("packetId");
