-- CreateTable
CREATE TABLE "Epoch" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" INTEGER NOT NULL DEFAULT 0
);

-- The permission epoch starts at 0 (lib/store/permissions.ts moves it).
INSERT INTO "Epoch" ("name", "value") VALUES ('permissions', 0);
