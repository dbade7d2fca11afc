-- DropIndex
DROP INDEX "EvalDataset_name_key";

-- DropIndex
DROP INDEX "Permission_agent_tool_step_key";

-- DropIndex
DROP INDEX "Run_idempotencyKey_key";

-- DropIndex
DROP INDEX "Schedule_name_key";

-- DropIndex
DROP INDEX "ToolRegistration_name_key";

-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "AuditLog" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "DecisionLink" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "DecisionPacket" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "DecisionQueue" DROP CONSTRAINT "DecisionQueue_pkey",
ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default',
ADD CONSTRAINT "DecisionQueue_pkey" PRIMARY KEY ("workspaceId", "name");

-- AlterTable
ALTER TABLE "EvalDataset" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "EvalRun" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "NotificationChannel" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "Permission" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "PermissionChange" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "Schedule" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "ToolRegistration" ADD COLUMN     "workspaceId" TEXT NOT NULL DEFAULT 'default';

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "instanceAdmin" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "Workspace" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Workspace_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Membership" (
    "userId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Membership_pkey" PRIMARY KEY ("userId","workspaceId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Workspace_slug_key" ON "Workspace"("slug");

-- CreateIndex
CREATE INDEX "Membership_workspaceId_idx" ON "Membership"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "EvalDataset_workspaceId_name_key" ON "EvalDataset"("workspaceId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Permission_workspaceId_agent_tool_step_key" ON "Permission"("workspaceId", "agent", "tool", "step");

-- CreateIndex
CREATE UNIQUE INDEX "Run_workspaceId_idempotencyKey_key" ON "Run"("workspaceId", "idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "Schedule_workspaceId_name_key" ON "Schedule"("workspaceId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "ToolRegistration_workspaceId_name_key" ON "ToolRegistration"("workspaceId", "name");

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;



-- Every deployment starts with one workspace, and what existed before workspaces is its own. The role of a person there
-- stays User.role (lib/workspaces/members.ts). Admins become instance admins (they may create workspaces).
INSERT INTO "Workspace" ("id", "slug", "name") VALUES ('default', 'default', 'Default');
UPDATE "User" SET "instanceAdmin" = true WHERE "role" = 'admin';
