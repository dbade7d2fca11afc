import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// lib/config.ts is the one reader of the environment: a variable read anywhere else escapes its parsing,
// its error messages and docs/configuration.md. Allowed elsewhere: tests, scripts, benchmarks and e2e
// (they set up processes), the tools' own config files, and the two cases below.
const ALLOWED_DIRS = ["tests/", "scripts/", "bench/", "e2e/"];
const ALLOWED_FILES = new Set([
  "lib/config.ts",
  "next.config.ts",
  "playwright.config.ts",
  "prisma.config.ts",
  "vitest.config.mts",
  "eslint.config.mjs",
  "postcss.config.mjs",
  // The published CLI (`tether …`): plain JavaScript run by users against a console's HTTP API, outside the app.
  "bin/tether.mjs",
]);
// Next's own switch, inlined at build time so that the edge bundle drops the Node-only import after it.
const ALLOWED_READS: Record<string, RegExp> = {
  "instrumentation.ts": /^\s*if \(process\.env\.NEXT_RUNTIME !== "nodejs"\) return;$/,
};

const READS_ENV = /\bprocess\s*(?:\?\.|\.)\s*env\b|\bprocess\s*\[\s*["'`]env|\benv\b[^=;]*\}\s*=\s*process\b/;

/** Tracked and new (not ignored) source files, as the lead will merge them. */
function sourceFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { encoding: "utf8" });
  return listed.split("\n").filter((file) => /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/.test(file));
}

describe("environment reads", () => {
  it("no process.env outside lib/config.ts, tests, scripts, bench, e2e and the config files", () => {
    const files = sourceFiles();
    expect(files).toContain("lib/config.ts"); // the listing works
    const offenders: string[] = [];
    for (const file of files) {
      if (ALLOWED_DIRS.some((dir) => file.startsWith(dir)) || ALLOWED_FILES.has(file)) continue;
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        continue; // deleted in the work tree, still in the index
      }
      text.split("\n").forEach((line, i) => {
        const code = line.trim();
        if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) return;
        if (READS_ENV.test(line) && !ALLOWED_READS[file]?.test(line)) offenders.push(`${file}:${i + 1}: ${code}`);
      });
    }
    expect(offenders, "read it through getConfig() (lib/config.ts) instead").toEqual([]);
  });

  it("the check sees the ways a file can read the environment", () => {
    for (const line of [
      "const x = process.env.PORT;",
      "const { env } = process;",
      'process["env"].X',
      "process?.env?.X",
      "f(process.env)",
    ])
      expect(READS_ENV.test(line), line).toBe(true);
    for (const line of [
      "const environment = loadConfig(env);",
      "processEnvironment()",
      "const env = toolEnvironment();",
    ])
      expect(READS_ENV.test(line), line).toBe(false);
  });
});
