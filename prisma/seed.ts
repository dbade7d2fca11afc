import type { Db } from "../lib/db.ts";

/**
 * Demo data for a fresh database. scripts/setup.ts calls this once, right after the first
 * migration of a new database (never on later starts); `--no-seed` skips it.
 */
export async function seedDatabase(db: Db): Promise<void> {
  // No demo agents are registered yet (lib/agents is empty), so a new console starts empty.
  // The demo agents' permissions and runs are seeded here when they land.
  void db;
}
