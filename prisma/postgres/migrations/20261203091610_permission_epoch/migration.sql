-- CreateTable
CREATE TABLE "Epoch" (
    "name" TEXT NOT NULL,
    "value" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Epoch_pkey" PRIMARY KEY ("name")
);

-- The permission epoch starts at 0 (lib/store/permissions.ts moves it).
INSERT INTO "Epoch" ("name", "value") VALUES ('permissions', 0);
