// The migrations this build ships (prisma/<provider>/migrations) beside the ones the database applied
// (Prisma's _prisma_migrations): set-up applies the missing ones, readiness refuses traffic until none is.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Db, DbProvider } from "@/lib/db";

export type Migration = { name: string; checksum: string };

/** Where a provider's migrations are shipped: prisma/<provider>/migrations under the app's root. */
export const migrationsDir = (root: string, provider: DbProvider) => path.join(root, "prisma", provider, "migrations");

/** The shipped migrations, by name; each with the sha256 of its migration.sql, as Prisma records it. */
export function shippedMigrations(dir: string): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => ({
      name: entry.name,
      checksum: createHash("sha256")
        .update(readFileSync(path.join(dir, entry.name, "migration.sql")))
        .digest("hex"),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** name → checksum of the migrations Prisma finished (not rolled back); empty on a new database. */
export async function appliedMigrations(db: Db): Promise<Map<string, string>> {
  try {
    const rows = await db.$queryRawUnsafe<Migration[]>(
      `SELECT migration_name AS name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    return new Map(rows.map((r) => [r.name, r.checksum]));
  } catch {
    return new Map(); // no _prisma_migrations table yet
  }
}

export type MigrationStatus = {
  /** Shipped and not applied (or applied from a different migration.sql). */
  pending: string[];
  /** Applied and not shipped: the database was migrated by a newer build (a rolling deploy's old pods). */
  ahead: string[];
};

/** Compares the database with the shipped folder; the database is at head when nothing is pending. */
export async function migrationStatus(db: Db, dir: string): Promise<MigrationStatus> {
  const shipped = shippedMigrations(dir);
  const applied = await appliedMigrations(db);
  const names = new Set(shipped.map((m) => m.name));
  return {
    pending: shipped.filter((m) => applied.get(m.name) !== m.checksum).map((m) => m.name),
    ahead: [...applied.keys()].filter((name) => !names.has(name)).sort(),
  };
}
