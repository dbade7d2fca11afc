// `npm test`: the whole suite, as CI runs it.
//   1. typecheck, lint and format (Prettier: `npm run format` writes it);
//   2. unit + integration tests (Vitest) on SQLite, and on Postgres when reachable — with
//      TETHER_REQUIRE_PG=1 (CI) a missing Postgres, or Postgres tests that did not run, fail the run;
//   3. journey evals (npm run eval -- --dataset default --faults all, held to their thresholds);
//   4. end-to-end tests in a real Chromium (Playwright) against the production build.
// Ends with one line "Tests: N passed, N failed".
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";

type Step = { name: string; cmd: string; args: string[]; env?: Record<string, string>; timeoutMs?: number };
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" };
const requirePg = process.env.TETHER_REQUIRE_PG === "1";
const skipE2e = process.env.TETHER_SKIP_E2E === "1";
mkdirSync("test-results", { recursive: true });

function run({ name, cmd, args, env: extra, timeoutMs }: Step): boolean {
  console.log(`\n▶ ${name}: ${cmd} ${args.join(" ")}`);
  const started = Date.now();
  // A step that hangs fails the run instead of holding CI until its hard limit.
  const result = spawnSync(cmd, args, {
    stdio: "inherit",
    env: { ...env, ...extra },
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  if (result.error) console.log(`${name}: ${result.error.message}`);
  console.log(`${result.status === 0 ? "✔" : "✘"} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return result.status === 0;
}

const failures: string[] = [];
const failedTests: string[] = [];
let passed = 0;
let failed = 0;

for (const step of [
  { name: "typecheck", cmd: "npx", args: ["tsc", "--noEmit"] },
  { name: "lint", cmd: "npx", args: ["eslint", ".", "--max-warnings=0"] },
  { name: "format", cmd: "npx", args: ["prettier", "--check", "."] },
])
  if (!run(step)) failures.push(step.name);

const vitestReport = "test-results/vitest.json";
if (
  !run({
    name: "unit + integration",
    cmd: "npx",
    args: ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestReport}`],
  })
)
  failures.push("vitest");
if (existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>;
  };
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  failedTests.push(
    ...report.testResults
      .flatMap((f) => f.assertionResults)
      .filter((t) => t.status === "failed")
      .map((t) => `vitest: ${t.fullName}`),
  );
  const pgPassed = report.testResults
    .flatMap((f) => f.assertionResults)
    .filter((t) => t.fullName.includes("[postgres]") && t.status === "passed").length;
  console.log(`Postgres tests passed: ${pgPassed}`);
  if (requirePg && pgPassed === 0) failures.push("no Postgres test ran (TETHER_REQUIRE_PG=1)");
} else failures.push("vitest wrote no report");

// Journey evals: the default dataset under every fault; exits non-zero when a score is under its threshold.
if (
  !run({
    name: "journey evals",
    cmd: "npx",
    args: ["tsx", "scripts/eval.ts", "--dataset", "default", "--faults", "all"],
    timeoutMs: 30 * 60_000,
  })
)
  failures.push("journey evals");

if (skipE2e) {
  console.log("\n(e2e skipped: TETHER_SKIP_E2E=1)");
} else if (!existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium")) {
  failures.push("e2e: no Chromium at /usr/bin/chromium (apt-get install -y chromium, or set CHROMIUM_PATH)");
} else {
  if (!run({ name: "build", cmd: "npx", args: ["next", "build"] })) failures.push("next build");
  else {
    const e2eReport = "test-results/e2e.json";
    if (
      !run({
        name: "e2e (Chromium)",
        cmd: "npx",
        args: ["playwright", "test", "--reporter=list,json"],
        env: { PLAYWRIGHT_JSON_OUTPUT_NAME: e2eReport },
      })
    )
      failures.push("e2e");
    if (existsSync(e2eReport)) {
      const report = JSON.parse(readFileSync(e2eReport, "utf8")) as {
        stats: { expected: number; unexpected: number; flaky: number };
        suites: PlaywrightSuite[];
      };
      passed += report.stats.expected + report.stats.flaky;
      failed += report.stats.unexpected;
      failedTests.push(...unexpectedSpecs(report.suites).map((title) => `e2e: ${title}`));
    } else failures.push("playwright wrote no report");
  }
}

// The failing tests' names come last, where a CI log cut to its tail still shows them.
if (failedTests.length) console.log(`\nFailing tests:\n${failedTests.map((name) => `  - ${name}`).join("\n")}`);
console.log(failures.length ? `\nFailed: ${failures.join("; ")}` : "\nAll checks passed.");
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(failures.length ? 1 : 0);

type PlaywrightSuite = {
  title: string;
  suites?: PlaywrightSuite[];
  specs?: Array<{ title: string; ok: boolean; file?: string }>;
};

function unexpectedSpecs(suites: PlaywrightSuite[], path: string[] = []): string[] {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? [])
      .filter((spec) => !spec.ok)
      .map((spec) => [...path, suite.title, spec.title].filter(Boolean).join(" › ")),
    ...unexpectedSpecs(suite.suites ?? [], [...path, suite.title]),
  ]);
}
