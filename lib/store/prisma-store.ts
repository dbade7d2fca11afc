import type { Db } from "@/lib/db";
import type { RuntimeStore } from "@/lib/runtime/store";
import type { Logger } from "@/lib/runtime/types";
import { dialectOf } from "./dialect";
import { createHistoryStore } from "./history";
import { createLeaseStore } from "./leases";
import { createPacketStore } from "./packets";
import { createPermissionStore } from "./permissions";
import { createRunStore } from "./runs";
import { createSignalStore } from "./signals";
import { createStepStore } from "./steps";

// The RuntimeStore over Prisma, on SQLite and on Postgres, assembled from one file per capability. Each
// capability holds its Prisma queries and its raw SQL for both databases side by side; the dialect (which
// SQL to speak, how a raw statement reaches the database, the clocks, the wake-ups) is chosen once, here.
// Every change that makes a run runnable wakes workers (wakeups.ts): listeners in this process after it
// commits, and on Postgres a NOTIFY sent by the change's own transaction.

export function createPrismaStore(db: Db, opts: { now?: () => Date; logger?: Logger } = {}): RuntimeStore {
  const dialect = dialectOf(db, opts);
  const permissions = createPermissionStore(dialect);
  return {
    ...createRunStore(dialect),
    ...createStepStore(dialect, () => permissions.permissionEpoch()),
    ...createHistoryStore(dialect),
    ...createLeaseStore(dialect),
    ...createPacketStore(dialect),
    ...createSignalStore(dialect),
    ...permissions,
    async close() {
      await dialect.wakeups.close();
      await db.$disconnect();
    },
  };
}
