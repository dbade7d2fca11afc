-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "tokens" REAL NOT NULL,
    "at" BIGINT NOT NULL,
    "allowed" BOOLEAN NOT NULL DEFAULT true
);

-- CreateTable
CREATE TABLE "ThrottleFailure" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT NOT NULL,
    "at" BIGINT NOT NULL
);

-- CreateIndex
CREATE INDEX "ThrottleFailure_key_at_idx" ON "ThrottleFailure"("key", "at");
