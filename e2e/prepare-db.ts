// Builds the end-to-end database exactly as a new user's first `npm start` does: a fresh SQLite file in
// data/e2e, migrated and seeded by the real set-up script — the demo accounts, and the demo agents really
// run into every parked state against the sandbox world. The specs then start their own runs through
// the HTTP API (e2e/api.ts), so none depends on another's data or on file order.
//   npx tsx e2e/prepare-db.ts        (playwright.config.ts runs it before `next start`)
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { E2E_API_TOKEN, E2E_DATA_DIR, e2eDatabaseUrl } from "./fixtures";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.join(root, E2E_DATA_DIR);
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });
execFileSync("npx", ["tsx", "scripts/setup.ts"], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    ...process.env,
    TETHER_DATA_DIR: E2E_DATA_DIR,
    DATABASE_URL: e2eDatabaseUrl(root),
    TETHER_BOOTSTRAP_TOKEN: E2E_API_TOKEN,
    TETHER_DEMO: "1",
    CHECKPOINT_DISABLE: "1",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
});
