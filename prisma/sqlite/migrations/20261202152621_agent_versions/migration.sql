-- CreateTable
CREATE TABLE "AgentVersion" (
    "slug" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "model" TEXT,
    "tools" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT '[]',
    "firstSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("slug", "version")
);
