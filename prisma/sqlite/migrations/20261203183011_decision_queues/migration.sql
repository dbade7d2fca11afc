-- CreateTable
CREATE TABLE "DecisionQueue" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "roles" TEXT NOT NULL DEFAULT '[]',
    "people" TEXT NOT NULL DEFAULT '[]',
    "updatedBy" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);
