import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { readRuns, storageStateFile, type E2eRuns } from "./fixtures";

// A smoke test of the console pages in a real Chromium, against the production build serving the
// database e2e/prepare-db.ts filled by really running agents (see playwright.config.ts). Signed in as
// the operator (the project's default state), the inbox as the reviewer.
// Locators go by role, label and text; note that getByRole("alert") would also match Next's route
// announcer.

const root = path.resolve(__dirname, "..");
// Read lazily: the file is (re)written by the web server's command, after the specs are collected.
let cached: E2eRuns | undefined;
const runs = () => (cached ??= readRuns(root));

/** A row of the runs table, found by the link to its run. */
const runRow = (page: Page, runId: string) =>
  page.getByRole("table").getByRole("row").filter({ has: page.getByRole("link", { name: runId, exact: true }) });

/** A titled part of a page (recovery column, state section): the <section> that holds its heading. */
const part = (page: Page, heading: string, level?: number) =>
  page.locator("section").filter({ has: page.getByRole("heading", { name: heading, exact: true, level }) }).last();

/** A row of the trace timeline, by event type. */
const traceRows = (page: Page, type: string): Locator =>
  page.getByRole("table").getByRole("row").filter({ has: page.getByRole("cell", { name: type, exact: true }) });

test.describe("runs list", () => {
  test("lists every run with its status, newest first", async ({ page }) => {
    const { completed, waitingApproval, needsAttention, waitingEvent } = runs();
    await page.goto("/runs");
    await expect(page).toHaveTitle("Runs · Tether");
    await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Runs" })).toHaveAttribute("aria-current", "page");

    const expected: Array<[string, string, string]> = [
      [waitingEvent, "deploy-demo@1", "Waiting event"],
      [needsAttention, "deploy-demo@1", "Needs attention"],
      [waitingApproval, "refund-demo@1", "Waiting approval"],
      [completed, "refund-demo@1", "Completed"],
    ];
    const body = page.getByRole("table").getByRole("row").filter({ has: page.getByRole("cell") });
    await expect(body).toHaveCount(expected.length);
    for (const [i, [id, agent, status]] of expected.entries()) {
      const cells = body.nth(i).getByRole("cell");
      await expect(cells.nth(0)).toHaveText(id);
      await expect(cells.nth(1)).toHaveText(agent);
      await expect(cells.nth(2)).toHaveText(status);
    }
  });

  test("the status filter narrows the list to runs waiting for approval", async ({ page }) => {
    const { completed, waitingApproval, needsAttention, waitingEvent } = runs();
    await page.goto("/runs");
    const filter = page.getByRole("navigation", { name: "Filter by status" });
    await expect(filter.getByRole("link", { name: "All", exact: true })).toHaveAttribute("aria-current", "page");

    await filter.getByRole("link", { name: "Waiting approval", exact: true }).click();
    await expect(page).toHaveURL(/\/runs\?status=WAITING_APPROVAL$/);
    await expect(filter.getByRole("link", { name: "Waiting approval", exact: true })).toHaveAttribute("aria-current", "page");
    await expect(filter.getByRole("link", { name: "All", exact: true })).not.toHaveAttribute("aria-current", "page");
    await expect(runRow(page, waitingApproval)).toBeVisible();
    await expect(runRow(page, waitingApproval).getByRole("cell").nth(2)).toHaveText("Waiting approval");
    for (const other of [completed, needsAttention, waitingEvent]) await expect(page.getByRole("link", { name: other })).toHaveCount(0);

    // a status with no runs says so instead of showing an empty table
    await filter.getByRole("link", { name: "Failed", exact: true }).click();
    await expect(page).toHaveURL(/\/runs\?status=FAILED$/);
    await expect(page.getByText("No failed runs")).toBeVisible();
    await expect(page.getByRole("table")).toHaveCount(0);

    await filter.getByRole("link", { name: "All", exact: true }).click();
    await expect(page).toHaveURL(/\/runs$/);
    await expect(page.getByRole("table").getByRole("row").filter({ has: page.getByRole("cell") })).toHaveCount(4);
  });

  test("a run's link opens its page", async ({ page }) => {
    const { waitingApproval } = runs();
    await page.goto("/runs");
    await page.getByRole("link", { name: waitingApproval, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${waitingApproval}$`));
    await expect(page.getByRole("heading", { name: waitingApproval, level: 1 })).toBeVisible();
  });
});

test.describe("run page", () => {
  test("a run waiting for approval: recovery view, trace, facts with their kind", async ({ page }) => {
    const { waitingApproval } = runs();
    await page.goto(`/runs/${waitingApproval}`);
    await expect(page.getByRole("heading", { name: waitingApproval, level: 1 })).toBeVisible();
    await expect(page.getByRole("main").getByTitle("WAITING_APPROVAL")).toHaveText("Waiting approval");

    // recovery view: nothing has happened yet; the safe next thing is to decide the packet
    await expect(page.getByRole("heading", { name: "Recovery", level: 2 })).toBeVisible();
    await expect(part(page, "Definitely happened", 3)).toContainText("No effects yet.");
    await expect(part(page, "May have happened", 3)).toContainText("Nothing in doubt.");
    const safeNext = part(page, "Safe next", 3);
    await expect(safeNext.getByRole("listitem")).toHaveCount(1);
    await expect(safeNext.getByRole("listitem")).toContainText("Decide");
    await expect(safeNext.getByRole("listitem")).toContainText("(payments.refund): refunds $240.00 on order ord_1042");

    // trace timeline: the order was read with a tool call, then the refund asked for approval
    await expect(page.getByRole("heading", { name: "Trace", level: 2 })).toBeVisible();
    await expect(traceRows(page, "run.created")).toHaveCount(1);
    const toolCalls = traceRows(page, "tool.call");
    await expect(toolCalls).toHaveCount(1);
    await expect(toolCalls).toContainText('"tool":"orders.get"');
    const gate = traceRows(page, "gate.requested");
    await expect(gate).toHaveCount(1);
    await expect(gate).toContainText('"tool":"payments.refund"');
    await gate.getByText(/^\{"packetId"/).click(); // the JSON preview opens into the whole document
    await expect(gate).toContainText('"impact": "refunds $240.00 on order ord_1042"');

    // state: the order is an observation (a read tool returned it), the refund waits on a gate
    await expect(page.getByRole("heading", { name: "Current state", level: 2 })).toBeVisible();
    const facts = part(page, "Facts", 3);
    const order = facts.getByRole("listitem").filter({ hasText: "ord_1042" });
    await expect(order).toHaveCount(1);
    await expect(order.getByTitle(/^a read tool returned it/)).toHaveText(/observation/);
    await expect(order).toContainText("tool orders.get");
    await expect(part(page, "Pending", 3)).toContainText("Waiting for a decision on payments.refund (step 1)");
  });

  test("a completed run: effects that definitely happened, receipts as facts", async ({ page }) => {
    const { completed } = runs();
    await page.goto(`/runs/${completed}`);
    await expect(page.getByRole("main").getByTitle("COMPLETED")).toHaveText("Completed");

    const happened = part(page, "Definitely happened", 3).getByRole("listitem");
    await expect(happened).toHaveCount(2);
    await expect(happened.nth(0)).toContainText("payments.refund");
    await expect(happened.nth(0)).toContainText("idempotent");
    await expect(happened.nth(1)).toContainText("mail.send");
    await expect(part(page, "Safe next", 3)).toContainText("The run is completed; nothing will run again.");

    await expect(traceRows(page, "tool.call")).toHaveCount(3); // orders.get, payments.refund, mail.send
    await expect(traceRows(page, "run.completed")).toHaveCount(1);

    const facts = part(page, "Facts", 3).getByRole("listitem");
    await expect(facts).toHaveCount(3);
    await expect(facts.nth(0).getByTitle(/^a read tool returned it/)).toHaveText(/observation/);
    for (const [i, receipt] of [[1, "receipt re_1"], [2, "receipt msg_2"]] as const) {
      await expect(facts.nth(i).getByTitle(/^an external system confirmed it/)).toHaveText(/receipt/);
      await expect(facts.nth(i)).toContainText(receipt);
    }
  });

  test("checkpoints: ?checkpoint= shows the state as it was then", async ({ page }) => {
    const { waitingApproval } = runs();
    await page.goto(`/runs/${waitingApproval}`);
    const checkpoints = part(page, "Checkpoints", 2);
    await expect(checkpoints.getByRole("link", { name: "Current state" })).toHaveAttribute("aria-current", "true");

    // the first checkpoint is the run as it was created: no facts yet
    await checkpoints.getByRole("link", { name: /^#1 · step 0/ }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${waitingApproval}\\?checkpoint=1$`));
    await expect(page.getByRole("heading", { name: "State at checkpoint #1", level: 2 })).toBeVisible();
    await expect(checkpoints.getByRole("link", { name: /^#1 · step 0/ })).toHaveAttribute("aria-current", "true");
    await expect(part(page, "Facts", 3)).toContainText("No facts recorded.");
    await expect(part(page, "Pending", 3)).toContainText("Nothing pending.");

    // the next one holds the order the first step read
    await checkpoints.getByRole("link", { name: /^#2 · step 1/ }).click();
    await expect(page).toHaveURL(new RegExp(`\\?checkpoint=2$`));
    await expect(page.getByRole("heading", { name: "State at checkpoint #2", level: 2 })).toBeVisible();
    await expect(part(page, "Facts", 3).getByRole("listitem").filter({ hasText: "ord_1042" })).toContainText("observation");

    // back to the current state
    await checkpoints.getByRole("link", { name: "Current state" }).click();
    await expect(page.getByRole("heading", { name: "Current state", level: 2 })).toBeVisible();
    await expect(part(page, "Pending", 3)).toContainText("Waiting for a decision on payments.refund");

    // a checkpoint that does not exist falls back to the current state, and says so
    await page.goto(`/runs/${waitingApproval}?checkpoint=999`);
    await expect(page.getByRole("heading", { name: "Current state", level: 2 })).toBeVisible();
    await expect(page.getByText("That checkpoint does not exist; showing the current state.")).toBeVisible();
  });

  test("a run that needs attention lists the unsafe deploy as 'may have happened'", async ({ page }) => {
    const { needsAttention } = runs();
    await page.goto(`/runs/${needsAttention}`);
    await expect(page.getByRole("main").getByTitle("NEEDS_ATTENTION")).toHaveText("Needs attention");

    await expect(part(page, "Definitely happened", 3)).toContainText("No effects yet.");
    const doubt = part(page, "May have happened", 3).getByRole("listitem");
    await expect(doubt).toHaveCount(1);
    await expect(doubt).toContainText("deploy.migrate");
    await expect(doubt).toContainText("unsafe");
    await expect(doubt).toContainText("the call was made but its outcome is unknown and the tool cannot be safely repeated");
    await doubt.getByText("arguments", { exact: true }).click();
    await expect(doubt).toContainText('"migration": "2025_add_invoice_index"');

    await expect(part(page, "Safe next", 3)).toContainText("runs migration 2025_add_invoice_index on production — may or may not have happened");
    await expect(traceRows(page, "effect.unknown_outcome")).toHaveCount(1);
    await expect(traceRows(page, "tool.call")).toContainText('"semantics":"unsafe"');
  });

  test("a run waiting for an event says what it waits for", async ({ page }) => {
    const { waitingEvent } = runs();
    await page.goto(`/runs/${waitingEvent}`);
    await expect(page.getByRole("main").getByTitle("WAITING_EVENT")).toHaveText("Waiting event");
    await expect(part(page, "Definitely happened", 3).getByRole("listitem")).toContainText("deploy.migrate");
    await expect(part(page, "Safe next", 3)).toContainText('Waiting for a "deploy.finished" event.');
    await expect(part(page, "Pending", 3)).toContainText("Waiting for a deploy.finished event");
    await expect(traceRows(page, "signal.waiting")).toHaveCount(1);
  });

  test("an unknown run id gives the not-found page", async ({ page }) => {
    const response = await page.goto("/runs/run_does_not_exist");
    expect(response?.status()).toBe(404);
    await expect(page.getByText("Run not found")).toBeVisible();
    await expect(page.getByText("There is no run with this id.")).toBeVisible();
    await page.getByRole("link", { name: "Back to runs" }).click();
    await expect(page).toHaveURL(/\/runs$/);
  });

  test("an unknown page gives the app's not-found page", async ({ page }) => {
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await page.getByRole("link", { name: "Go to runs" }).click();
    await expect(page).toHaveURL(/\/runs$/);
  });
});

test.describe("inbox", () => {
  test.use({ storageState: storageStateFile("reviewer") });

  test("shows the pending decision packets with their impact", async ({ page }) => {
    const { waitingApproval, needsAttention } = runs();
    await page.goto("/inbox");
    await expect(page).toHaveTitle("Inbox · Tether");
    await expect(page.getByRole("heading", { name: "Inbox", level: 1 })).toBeVisible();
    const packets = page.getByRole("article");
    await expect(packets).toHaveCount(2);

    const refund = packets.filter({ hasText: "payments.refund" });
    await expect(refund.getByRole("paragraph").filter({ hasText: /^refunds \$240\.00 on order ord_1042$/ })).toBeVisible();
    await expect(refund.getByText("approval", { exact: true })).toBeVisible();
    await expect(refund.getByRole("definition").filter({ hasText: "0 / 1" })).toBeVisible();

    const deploy = packets.filter({ hasText: "deploy.migrate" });
    await expect(deploy).toContainText("runs migration 2025_add_invoice_index on production — may or may not have happened");
    await expect(deploy.getByText("unknown outcome", { exact: true })).toBeVisible();
    await expect(deploy.getByRole("link", { name: needsAttention })).toBeVisible();

    await refund.getByRole("link", { name: waitingApproval }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${waitingApproval}$`));
    await expect(page.getByRole("heading", { name: waitingApproval, level: 1 })).toBeVisible();
  });
});

test.describe("screenshots", () => {
  // Full pages at 1280×800, written to test-results/e2e-screenshots on every run; with
  // UPDATE_SCREENSHOTS=1 also copied to docs/screenshots (committed, so a plain test run does not
  // leave the working tree dirty).
  const shots = path.join(root, "test-results", "e2e-screenshots");
  const docs = path.join(root, "docs", "screenshots");

  async function shoot(page: Page, url: string, name: string, ready: Locator) {
    await page.goto(url);
    await expect(ready).toBeVisible();
    mkdirSync(shots, { recursive: true });
    const file = path.join(shots, name);
    await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
    if (process.env.UPDATE_SCREENSHOTS === "1") {
      mkdirSync(docs, { recursive: true });
      copyFileSync(file, path.join(docs, name));
    }
  }

  test("runs, a run, inbox", async ({ page }) => {
    expect(page.viewportSize()).toEqual({ width: 1280, height: 800 });
    await shoot(page, "/runs", "runs.png", page.getByRole("table"));
    await shoot(page, `/runs/${runs().needsAttention}`, "run.png", page.getByRole("heading", { name: "Trace" }));
    await shoot(page, "/inbox", "inbox.png", page.getByRole("article").first());
  });
});
