-- UNLOGGED (written by hand: Prisma cannot say it): these counters are rewritten on every request and
-- a crash that forgets them only refills the buckets. No WAL for them, so they cost less and are not replicated.
-- CreateTable
CREATE UNLOGGED TABLE "RateLimitBucket" (
    "key" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "at" BIGINT NOT NULL,
    "allowed" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "RateLimitBucket_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE UNLOGGED TABLE "ThrottleFailure" (
    "id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "at" BIGINT NOT NULL,

    CONSTRAINT "ThrottleFailure_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ThrottleFailure_key_at_idx" ON "ThrottleFailure"("key", "at");
