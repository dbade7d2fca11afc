import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { tetherApi } from "./api";
import { approveHighImpact, asRole } from "./inbox";

// An operator follows a run live: the deploy agent waits at its gate, a reviewer approves in their own
// browser, and the open page shows the decision and what the run does next — without a reload.
// Then the operator inspects a checkpoint's state and the diff between two checkpoints.

const trace = (page: Page) => page.getByRole("region", { name: "Trace events" });
const status = (page: Page) => page.getByTestId("run-status");
const checkpointList = (page: Page) =>
  page.locator("section").filter({ has: page.getByRole("heading", { name: "Checkpoints", exact: true }) });

test("an operator follows a running deploy run live, then inspects a checkpoint and a diff", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(90_000);
  const api = tetherApi(request);
  const { runId, packet } = await api.startDeployAwaitingApproval();

  await page.goto(`/runs/${runId}`);
  await expect(page.getByRole("heading", { level: 1, name: runId })).toBeVisible();
  await expect(status(page)).toContainText("Waiting approval");
  await expect(status(page)).toContainText("live");
  await expect(trace(page).getByText("gate.requested", { exact: true })).toBeVisible();
  await expect(trace(page).getByText("Human decision")).toHaveCount(0);
  const loads = page.url();
  const checkpointLinks = checkpointList(page).getByRole("link", { name: /^#\d+ · step/ });
  const checkpointsAtLoad = await checkpointLinks.count();
  const snapshotRequests: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith(`/runs/${runId}/snapshot`)) snapshotRequests.push(request.url());
  });

  // Someone else — a reviewer, in their own browser — approves the packet from the inbox.
  await asRole(browser, "reviewer", async (inbox) => {
    await inbox.goto(`/inbox/${packet.id}`);
    await approveHighImpact(inbox); // an unsafe migration is high impact: the inbox asks to confirm
    await expect(inbox.getByText(/Decision recorded/)).toBeVisible({ timeout: 15_000 });
  });

  // The page follows: the decision is its own entry (who, how long the run waited), then the migration runs.
  const decision = trace(page).getByRole("listitem").filter({ hasText: "gate.decided" });
  await expect(decision).toBeVisible({ timeout: 15_000 });
  await expect(decision).toContainText("Human decision");
  await expect(decision).toContainText(/decided approve on deploys\.run_migration after/);
  await expect(
    trace(page).getByRole("listitem").filter({ hasText: "tool.call" }).filter({ hasText: "deploys.run_migration" }),
  ).toBeVisible({ timeout: 15_000 });
  await expect(status(page)).not.toContainText("Waiting approval", { timeout: 15_000 });
  // New checkpoints reach the open page through the run's snapshot (not the whole page): the list grows in place.
  await expect.poll(() => checkpointLinks.count(), { timeout: 15_000 }).toBeGreaterThan(checkpointsAtLoad);
  expect(snapshotRequests.length).toBeGreaterThan(0);
  expect(page.url()).toBe(loads); // no navigation happened

  // Filters: only human decisions, then a text filter that matches nothing.
  await expect(page.getByText(/Showing \d+ of \d+ events/)).toBeVisible();
  for (const kind of ["Model decisions", "Tool calls", "Permission checks", "Gates", "State transitions"]) {
    await page.getByRole("checkbox", { name: new RegExp(`^${kind}`) }).uncheck();
  }
  await expect(trace(page).getByText("Human decision")).toBeVisible();
  await expect(trace(page).getByText("tool.call", { exact: true })).toHaveCount(0);
  await page.getByLabel("Filter events").fill("no event says this");
  await expect(page.getByText("No events match")).toBeVisible();
  await page.getByLabel("Filter events").fill("");
  await page.getByRole("checkbox", { name: /^Tool calls/ }).check();
  await expect(trace(page).getByText("tool.call", { exact: true }).first()).toBeVisible();

  // The cost and latency summary reads the same trace.
  await expect(page.getByRole("img", { name: /Tool latency per step/ })).toBeVisible();

  // A past checkpoint's state, then the diff between the first and the latest checkpoint.
  await page.reload();
  await checkpointList(page)
    .getByRole("link", { name: /^#1 · step 0/ })
    .click();
  await expect(page.getByRole("heading", { name: "State at checkpoint #1" })).toBeVisible();
  await expect(page).toHaveURL(/checkpoint=1$/);

  await page.getByLabel("From checkpoint", { exact: true }).selectOption({ label: "#1 · step 0" });
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(/from=1&to=\d+/);
  const diff = page.getByRole("heading", { name: /^Checkpoint #1 → #\d+: \d+ changes?$/ });
  await expect(diff).toBeVisible();
  const changes = page.getByRole("list", { name: "State changes" });
  await expect(changes.getByText("step", { exact: true })).toBeVisible();
  await expect(changes.getByText(/^facts\[id=fact_/).first()).toBeVisible();
});

test("the run page has no serious accessibility violations", async ({ page, request }) => {
  test.setTimeout(90_000); // axe takes its time on a busy machine
  const { runId } = await tetherApi(request).startRefundAwaitingApproval();
  await page.goto(`/runs/${runId}`);
  await expect(trace(page).getByText("gate.requested", { exact: true })).toBeVisible();
  // The sidebar (components/shell) is the shell's own to fix; this checks the runs page itself.
  const results = await new AxeBuilder({ page }).exclude("aside").analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
});
