import { spawnSync } from "node:child_process";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { E2E_DATA_DIR, e2eDatabaseUrl } from "./fixtures";

// Real eval runs in the console. beforeAll runs the journey-eval CLI (the harness: real agent runs in
// throwaway databases, a scripted reviewer) against the e2e database twice — A: one case, B: that case
// plus an approval journey — then the specs read them: the list and the score chart, the eval-run page,
// a trial's trace and ledger, and the side-by-side compare.

test.describe.configure({ mode: "serial" });

const CLI_TIMEOUT_MS = 240_000;

function runEvalCli(cases: string): string {
  const result = spawnSync(
    "npx",
    [
      "tsx",
      "scripts/eval.ts",
      "--dataset",
      "default",
      "--case",
      cases,
      "--faults",
      "none",
      "--report",
      `${E2E_DATA_DIR}/evals/report-${Date.now()}.json`,
    ],
    {
      env: { ...process.env, DATABASE_URL: e2eDatabaseUrl(), TETHER_DATA_DIR: E2E_DATA_DIR },
      encoding: "utf8",
      timeout: CLI_TIMEOUT_MS,
    },
  );
  const id = /eval run (evr_\w+)/.exec(result.stdout)?.[1];
  // exit 1 = a score under its threshold: still a stored eval run; 2 = the CLI itself failed
  if (!id || (result.status !== 0 && result.status !== 1))
    throw new Error(`eval CLI failed (${result.status}): ${result.stdout}\n${result.stderr}`);
  return id;
}

let runA = "";
let runB = "";

test.beforeAll(async () => {
  test.setTimeout(2 * CLI_TIMEOUT_MS + 10_000);
  runA = runEvalCli("refund-small-auto");
  runB = runEvalCli("refund-small-auto,refund-large-approved");
});

async function expectNoSeriousAxeViolations(page: Page) {
  // The page's own content; the shared sidebar is checked by the shell's specs.
  const { violations } = await new AxeBuilder({ page }).include("main").analyze();
  expect(
    violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
  ).toEqual([]);
}

const card = (page: Page, title: string | RegExp) =>
  page
    .locator("section")
    .filter({ has: page.getByRole("heading", { name: title }) })
    .last();

test("the eval runs list and the chart of each score over eval runs", async ({ page }) => {
  await page.goto("/evals?dataset=default");
  await expect(page.getByRole("heading", { name: "Evals", level: 1 })).toBeVisible();
  const chart = page.getByRole("img", { name: "Completion score over eval runs" });
  await expect(chart).toBeVisible();
  // the accessible description carries the numbers: both runs passed every completion check
  await expect(chart).toHaveAccessibleDescription(
    /Completion over \d+ eval runs?, oldest first: .*100%\. Threshold 95%\./,
  );
  await expect(page.getByRole("img", { name: /score over eval runs$/ })).toHaveCount(7);
  await page.getByText("Show the scores as a table").click();
  const history = page.getByRole("table", { name: "Scores of each finished eval run, oldest first" });
  await expect(history.getByRole("link", { name: runA })).toBeVisible();
  await expect(history.getByRole("link", { name: runB })).toBeVisible();

  const runs = page.getByRole("table", { name: /^Eval runs, newest first/ });
  const rowB = runs.getByRole("row").filter({ has: page.getByRole("link", { name: runB }) });
  await expect(rowB).toContainText("Passed");
  await expect(rowB).toContainText("faults none · 2 cases");
  await expect(rowB).toContainText("2/2");
  await expectNoSeriousAxeViolations(page);
  await rowB.getByRole("link", { name: runB }).click();
  await expect(page).toHaveURL(new RegExp(`/evals/runs/${runB}$`));
});

test("the eval-run page: scores against thresholds, figures, trials; a trial's trace and ledger", async ({ page }) => {
  await page.goto(`/evals/runs/${runB}`);
  await expect(page.getByRole("heading", { name: `Eval run ${runB}`, level: 1 })).toBeVisible();
  const scores = page.getByRole("table", { name: "Aggregate score per dimension and its threshold" });
  await expect(scores.getByRole("row").filter({ hasText: "Approval compliance" })).toContainText("100%");
  await expect(scores.getByRole("row").filter({ hasText: "Recovery" })).toContainText("met");
  await expect(card(page, "Cost and time")).toContainText("2 of 2");
  await expect(card(page, "Cost and time")).toContainText(/human wait \d/);

  const trials = page.getByRole("table", { name: "Trials of this eval run: each case under each fault" });
  await expect(trials.getByRole("row")).toHaveCount(3);
  const approved = trials.getByRole("row").filter({ hasText: "refund-large-approved" });
  await expect(approved).toContainText("Passed");
  await expect(approved).toContainText("none");
  await expectNoSeriousAxeViolations(page);

  await approved.getByRole("link", { name: "Trace of refund-large-approved under none" }).click();
  await expect(page.getByRole("heading", { name: "Trial refund-large-approved · none", level: 1 })).toBeVisible();
  const trace = page.getByRole("list", { name: "Trace events" });
  await expect(trace.getByText("gate.requested", { exact: true })).toBeVisible();
  await expect(trace.getByText("gate.decided", { exact: true })).toBeVisible();
  await expect(trace.getByText("tool.call", { exact: true }).first()).toBeVisible();
  const ledger = page.getByRole("table", { name: "Ledger of the sandbox systems during the trial" });
  await expect(ledger.getByRole("row").filter({ hasText: "payments.refund" })).toHaveCount(1);
  await expect(page.getByRole("table", { name: "Checks of this trial, failed first" })).toContainText("✓ ok");
  await expectNoSeriousAxeViolations(page);
});

test("compare two eval runs side by side: the trial only B ran is listed", async ({ page }) => {
  await page.goto(`/evals/runs/${runB}`);
  await page.getByRole("link", { name: "Compare…" }).click();
  await page.getByLabel("Baseline (A)").selectOption(runA);
  await expect(page.getByLabel("Candidate (B)")).toHaveValue(runB);
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(new RegExp(`/evals/compare\\?a=${runA}&b=${runB}$`));
  await expect(page.getByRole("link", { name: runA })).toBeVisible();
  const changed = page.getByRole("table", { name: /^Trials whose outcome or scores differ/ });
  await expect(changed.getByRole("row").filter({ hasText: "refund-large-approved" })).toContainText("only in B");
  await expect(page.getByRole("heading", { name: /Trials that changed/ })).toContainText("1 unchanged");
  await expectNoSeriousAxeViolations(page);
});
