import { defineConfig } from "@playwright/test";
import { E2E_API_TOKEN, E2E_DATA_DIR, e2eDatabaseUrl, storageStateFile } from "./e2e/fixtures";

// End-to-end smoke tests in a real Chromium (Debian's, never `npx playwright install`) against the
// production build. `next build` is made beforehand (scripts/test.ts does it); the web server first
// builds a fresh e2e database with the real set-up and demo seed (e2e/prepare-db.ts), then serves it
// with the embedded worker on, so the demo agents' runs continue after a decision as they do for users.
// The "setup" project signs in each demo account once (e2e/auth.setup.ts) and saves its state; the
// specs run signed in as the operator unless they choose another role (test.use({ storageState })).
const PORT = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://localhost:${PORT}`;

export default defineConfig({
  testDir: "./e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: "list",
  outputDir: "test-results/e2e",
  use: {
    baseURL,
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    { name: "setup", testMatch: /auth\.setup\.ts$/ },
    {
      name: "chromium",
      testMatch: /\.spec\.ts$/,
      dependencies: ["setup"],
      use: { storageState: storageStateFile("operator") },
    },
  ],
  webServer: {
    // Bound to one address, as npm start's demo mode binds it (a rewrite in the proxy once looped only then).
    command: `npx tsx e2e/prepare-db.ts && npx next start -p ${PORT} -H 127.0.0.1`,
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    env: {
      TETHER_DATA_DIR: E2E_DATA_DIR,
      // absolute, and set explicitly so a DATABASE_URL in .env/.env.local cannot point the server elsewhere
      DATABASE_URL: e2eDatabaseUrl(__dirname),
      // the embedded worker's tools call the sandbox world this server serves
      PORT: String(PORT),
      TETHER_BOOTSTRAP_TOKEN: E2E_API_TOKEN,
      // the demo accounts sign in with the demo password (the embedded default is demo mode anyway)
      TETHER_DEMO: "1",
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
    },
  },
});
