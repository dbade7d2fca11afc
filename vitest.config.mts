import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    environment: "node",
    include: ["tests/**/*.test.ts", "lib/**/*.test.ts", "agents/**/*.test.ts"],
    globalSetup: ["./tests/support/global-setup.ts"],
    // Tests use random ids and share one SQLite file and one Postgres database; files run one at a
    // time so SQLite's single writer is not the thing under test.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
