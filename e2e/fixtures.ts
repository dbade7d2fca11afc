// Shared between e2e/prepare-db.ts, playwright.config.ts and the specs: where the e2e database lives,
// the demo accounts and the API token the specs use to set up their own runs (e2e/api.ts). data/ is
// git-ignored.
import path from "node:path";

export const E2E_DATA_DIR = "data/e2e";

/** The demo accounts the seed creates (lib/auth/mode.ts), and where each one's signed-in state is saved. */
export const ROLES = ["reviewer", "operator", "admin"] as const;
export type E2eRole = (typeof ROLES)[number];
export const DEMO_PASSWORD = "tether-demo";
export const demoEmail = (role: E2eRole) => `${role}@example.com`;
export const storageStateFile = (role: E2eRole) => `${E2E_DATA_DIR}/.auth/${role}.json`;

/** TETHER_BOOTSTRAP_TOKEN of the e2e server: an admin API token, for setting up runs through the HTTP API. */
export const E2E_API_TOKEN = "e2e-bootstrap-token-0123456789";

/** An absolute SQLite URL, so the set-up script and `next start` open one file. */
export function e2eDatabaseUrl(root: string = process.cwd()): string {
  return `file:${path.resolve(root, E2E_DATA_DIR, "tether.db")}`;
}
