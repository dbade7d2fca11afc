import { auditChange, type ChangeActor } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";

// What the commands that create a row for the API and the console share (create-channel.ts, create-token.ts): the
// row and its audit row in one transaction; the audit row is about the new row's id and holds what `audited` picks
// of it (never a secret).

/** The input the creating function parses, and who creates (`by`; `via` through what when not the console). */
export type CreateCommand = ChangeActor & { input: unknown };

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The command that creates with `create` and writes the `action` audit row. */
export function auditedCreation<T extends { id: string }>(
  action: string,
  create: (tx: Tx, command: CreateCommand) => Promise<T>,
  audited: (created: T) => Record<string, unknown>,
) {
  return (deps: { db: Db }, command: CreateCommand): Promise<T> =>
    deps.db.$transaction(async (tx) => {
      const created = await create(tx, command);
      await auditChange(tx, command, action, { target: created.id, data: audited(created) });
      return created;
    });
}
