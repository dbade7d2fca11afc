import { writeAudit, type AuditEntry, type AuditWriter } from "./audit-log";

// The audit row of a change a command makes, written in the change's transaction: the commands name their actor
// `{ by, via }` (a person's email, or "cli:<user>"; through what when not the console), the log `{ actor, via }`.

/** Who made a change: `by` is their email (or "cli:<user>"), `via` through what when not the console. */
export type ChangeActor = { by: string; via?: string };

/** The audit row of a change `who` made: what it acted on (`target`) and its details (`data`, never secrets). */
export async function auditChange(
  db: AuditWriter,
  who: ChangeActor,
  action: string,
  about: Pick<AuditEntry, "target" | "data"> = {},
): Promise<void> {
  await writeAudit(db, { actor: who.by, action, ...about, via: who.via });
}
