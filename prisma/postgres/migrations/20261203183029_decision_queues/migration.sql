-- CreateTable
CREATE TABLE "DecisionQueue" (
    "name" TEXT NOT NULL,
    "roles" TEXT NOT NULL DEFAULT '[]',
    "people" TEXT NOT NULL DEFAULT '[]',
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DecisionQueue_pkey" PRIMARY KEY ("name")
);
