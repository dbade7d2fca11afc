-- CreateTable
CREATE TABLE "ToolRegistration" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "semantics" TEXT NOT NULL,
    "inputSchema" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "impactTemplate" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "disabledAt" DATETIME,
    "disabledBy" TEXT
);

-- CreateIndex
CREATE UNIQUE INDEX "ToolRegistration_name_key" ON "ToolRegistration"("name");
