-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxOrder" (
    "id" TEXT NOT NULL,
    "customerEmail" TEXT NOT NULL,
    "customerName" TEXT NOT NULL,
    "amountCents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'usd',
    "cardLast4" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "refundedCents" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SandboxOrder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxPayment" (
    "id" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "kind" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "amountCents" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "response" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxPayment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxMail" (
    "id" TEXT NOT NULL,
    "operationId" TEXT,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "sentAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxMail_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxDeploy" (
    "id" TEXT NOT NULL,
    "migration" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "callbackUrl" TEXT,
    "runId" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "SandboxDeploy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxDoc" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SandboxDoc_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxTicket" (
    "id" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "customerEmail" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxTicket_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxDraft" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "runId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxDraft_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxLedgerEntry" (
    "id" TEXT NOT NULL,
    "system" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "runId" TEXT,
    "operationId" TEXT,
    "data" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxLedgerEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxFault" (
    "system" TEXT NOT NULL,
    "latencyMs" INTEGER NOT NULL DEFAULT 0,
    "errorRate" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "timeoutAfterApply" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SandboxFault_pkey" PRIMARY KEY ("system")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "SandboxPayment_idempotencyKey_key" ON "SandboxPayment"("idempotencyKey");

-- CreateIndex
CREATE INDEX "SandboxMail_operationId_idx" ON "SandboxMail"("operationId");

-- CreateIndex
CREATE INDEX "SandboxLedgerEntry_runId_idx" ON "SandboxLedgerEntry"("runId");
