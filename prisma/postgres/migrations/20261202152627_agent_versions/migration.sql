-- CreateTable
CREATE TABLE "AgentVersion" (
    "slug" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "model" TEXT,
    "tools" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT '[]',
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AgentVersion_pkey" PRIMARY KEY ("slug","version")
);
