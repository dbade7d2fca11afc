import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Browser } from "@playwright/test";
import { tetherApi } from "./api";
import { storageStateFile } from "./fixtures";
import { approveHighImpact, asRole } from "./inbox";
import { cellLink, openCell, ruleForm, setEffect } from "./permission-matrix";

// The permission matrix: an admin edits a cell, and the change applies to the next action of every run —
// also one already waiting for approval, whose approved action is then refused. Concurrent edits end in
// a conflict, never a silent overwrite; every change is in the history.

test.use({ storageState: storageStateFile("admin") });

async function approveAsReviewer(browser: Browser, packetId: string) {
  await asRole(browser, "reviewer", async (page) => {
    await page.goto(`/inbox/${packetId}`);
    await approveHighImpact(page);
    await expect(page.getByText("Decision recorded. The packet is now approved.")).toBeVisible();
  });
}

test("an admin revokes a permission while a run waits for approval; the approval is refused at the moment of acting", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(120_000);
  const api = tetherApi(request);
  const { runId, packet } = await api.startRefundAwaitingApproval();
  expect(packet.tool).toBe("payments.refund");

  await openCell(page, "refund-agent", "payments.refund");
  await expect(cellLink(page, "refund-agent", "payments.refund")).toHaveAttribute("aria-current", "true");
  // the demo grant: allowed for execute only, on the run's own order (condition 1) and with approval over
  // $100 (condition 2, on the amount), in the refunds queue
  const form = ruleForm(page, "refund-agent", "payments.refund");
  await expect(form.getByLabel("Effect", { exact: true })).toHaveValue("allow");
  const [sameOrder, overLimit] = [
    form.getByRole("group", { name: "Condition 1" }),
    form.getByRole("group", { name: "Condition 2" }),
  ];
  await expect(sameOrder.getByLabel("Argument path")).toHaveValue("orderId");
  await expect(sameOrder.getByLabel("Value")).toHaveValue("$input.orderId");
  await expect(overLimit.getByLabel("Argument path")).toHaveValue("amountCents");
  await expect(overLimit.getByLabel("Value")).toHaveValue("10000");

  try {
    await setEffect(page, "refund-agent", "payments.refund", "Deny");
    await expect(cellLink(page, "refund-agent", "payments.refund")).toHaveAccessibleName(
      /: Deny, only execute, 2 conditions$/,
    );
    const cellHistory = page.getByRole("table", { name: "Changes of refund-agent × payments.refund" });
    await expect(cellHistory.getByRole("row").nth(1)).toContainText("admin@example.com");
    await expect(cellHistory.getByRole("row").nth(1)).toContainText("effect: allow → deny");

    // the reviewer approves the packet that was asked for under the old rule…
    await approveAsReviewer(browser, packet.id);
    // …and the run, re-checking permission before it acts, refuses the refund
    await api.waitForStatus(runId, ["COMPLETED"]);
    const ledger = await (await request.get(`/api/sandbox/ledger?runId=${runId}&system=payments`)).json();
    expect(ledger.entries).toEqual([]);

    await page.goto(`/runs/${runId}`);
    // The timeline is virtualized: rows out of view are not in the DOM, so filter to the event as a reader would.
    await page.getByLabel("Filter events").fill("gate.refused");
    const refused = page
      .getByRole("region", { name: "Trace events" })
      .getByRole("listitem")
      .filter({ hasText: "gate.refused" });
    await expect(refused).toHaveCount(1);
    await expect(refused).toContainText("permission was revoked while the run waited");
  } finally {
    // the demo grant back, for every other spec
    await setEffect(page, "refund-agent", "payments.refund", "Allow");
  }
  await expect(
    page.getByRole("table", { name: "Changes of refund-agent × payments.refund" }).getByRole("row").nth(1),
  ).toContainText("effect: deny → allow");
});

test("a new rule, a concurrent edit that conflicts, then removal — each in the history", async ({ page, browser }) => {
  test.setTimeout(90_000);
  const agent = "outreach-agent";
  const tool = "payments.refund"; // outreach-agent has no grant of its own for it
  await openCell(page, agent, tool);
  await expect(page.getByText(/No rule grants this tool to this agent|applies \(/)).toBeVisible();

  const form = ruleForm(page, agent, tool, "New rule");
  await form.getByLabel("Step").selectOption("*");
  await form.getByLabel("Effect", { exact: true }).selectOption({ label: "Require approval" });
  await form.getByRole("button", { name: "Add condition" }).click();
  await form.getByLabel("Argument path").fill("amountCents");
  await form.getByLabel("Operator").selectOption("gt");
  await form.getByLabel("Value").fill("50000");
  await form.getByLabel("Then").selectOption({ label: "Deny" });
  await form.getByText("Approval settings").click();
  await form.getByLabel("Queue").fill("finance");
  await form.getByLabel("Expires after (seconds)").fill("3600");
  await form.getByLabel("On expiry").fill("escalate:leads");
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Saved ${agent}/${tool} (all steps): require approval, version 1` }),
  ).toBeVisible();

  // a second admin has the same cell open, then the first saves again: the second's save conflicts
  const other = await browser.newContext({ storageState: storageStateFile("admin") });
  try {
    const second = await other.newPage();
    await openCell(second, agent, tool);
    await ruleForm(page, agent, tool).getByLabel("Effect", { exact: true }).selectOption({ label: "Allow" });
    await ruleForm(page, agent, tool).getByRole("button", { name: "Save rule" }).click();
    await expect(page.getByRole("status").filter({ hasText: "allow, version 2" })).toBeVisible();

    await ruleForm(second, agent, tool).getByLabel("Effect", { exact: true }).selectOption({ label: "Deny" });
    await ruleForm(second, agent, tool).getByRole("button", { name: "Save rule" }).click();
    await expect(
      second
        .getByRole("alert")
        .filter({ hasText: "Someone changed this permission at the same time. Reload and try again." }),
    ).toBeVisible();
    // reloaded with the winner's version, nothing overwritten
    await expect(ruleForm(second, agent, tool).getByLabel("Effect", { exact: true })).toHaveValue("allow");
    await expect(ruleForm(second, agent, tool)).toContainText("version 2");
  } finally {
    await other.close();
  }

  await ruleForm(page, agent, tool).getByRole("button", { name: "Remove rule" }).click();
  const dialog = page.getByRole("dialog", { name: `Remove the rule ${agent}/${tool}?` });
  await dialog.getByRole("button", { name: "Remove rule" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Removed ${agent}/${tool}.` })).toBeVisible();
  await expect(ruleForm(page, agent, tool)).toHaveCount(0);

  const rows = page.getByRole("table", { name: `Changes of ${agent} × ${tool}` }).getByRole("row");
  // newest first: removed, edited, created, with no row for the refused concurrent edit between them
  // (no total count: a rerun against the same database adds its own three rows on top)
  await expect(rows.nth(1)).toContainText("removed (was allow)");
  await expect(rows.nth(2)).toContainText("effect: require_approval → allow");
  await expect(rows.nth(3)).toContainText("created: require_approval with 1 condition(s)");
  await expect(page.getByRole("table", { name: "Every permission change, newest first" })).toContainText(
    `${agent}/${tool}`,
  );
});

test("the permission matrix: its screenshot, and no serious accessibility violations", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto("/admin/permissions?agent=refund-agent&tool=payments.refund");
  await expect(page.getByRole("heading", { name: "Permissions", level: 1 })).toBeVisible();
  await expect(page.getByRole("table", { name: /Permission matrix/ })).toBeVisible();

  // as e2e/screenshots.spec.ts: test-results/e2e-screenshots always, docs/screenshots with UPDATE_SCREENSHOTS=1
  const root = path.resolve(__dirname, "..");
  const shots = path.join(root, "test-results", "e2e-screenshots");
  mkdirSync(shots, { recursive: true });
  const file = path.join(shots, "permissions.png");
  await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    mkdirSync(path.join(root, "docs", "screenshots"), { recursive: true });
    copyFileSync(file, path.join(root, "docs", "screenshots", "permissions.png"));
  }

  // the sidebar belongs to the shell (components/shell); this page is the main region
  const { violations } = await new AxeBuilder({ page }).include("main").analyze();
  expect(
    violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
  ).toEqual([]);
});
