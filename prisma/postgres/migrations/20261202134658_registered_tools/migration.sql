-- CreateTable
CREATE TABLE "ToolRegistration" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "semantics" TEXT NOT NULL,
    "inputSchema" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "impactTemplate" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "disabledAt" TIMESTAMP(3),
    "disabledBy" TEXT,

    CONSTRAINT "ToolRegistration_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ToolRegistration_name_key" ON "ToolRegistration"("name");
