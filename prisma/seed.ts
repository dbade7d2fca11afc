import type { Db } from "../lib/db.ts";

/**
 * Demo data for a fresh database. scripts/setup.ts calls this once, right after the first
 * migration of a new database (never on later starts); `--no-seed` skips it.
 */
export async function seedDatabase(db: Db): Promise<void> {
  // TODO(engine): create the demo agents' runs, packets and permissions.
  void db;
}
