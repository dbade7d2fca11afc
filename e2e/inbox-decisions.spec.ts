import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { readRuns, storageStateFile } from "./fixtures";

// The packet page and its decisions, as a reviewer, against the refund run e2e/prepare-db.ts left
// waiting at its gate. The e2e server has no embedded worker (TETHER_EMBEDDED_WORKER=0), so the run
// does not continue: these specs assert the packet's status, not the run's. The decisions change the
// database, so this file runs after console.spec.ts (which lists the pending packets).

test.use({ storageState: storageStateFile("reviewer") });

const root = path.resolve(__dirname, "..");
const packetStatus = (page: Page) => page.getByTestId("packet-status");

test("a reviewer edits with an invalid amount, approves, and a second reviewer loses the race", async ({ page, browser }) => {
  const { waitingApproval } = readRuns(root);
  await page.goto("/inbox");
  const refund = page.getByRole("article").filter({ hasText: "payments.refund" });
  await refund.getByRole("link", { name: /^Open packet / }).click();
  await expect(page).toHaveURL(/\/inbox\/[^/]+$/);
  await expect(page).toHaveTitle("Decision packet · Tether");
  const packetUrl = page.url();

  // What a reviewer decides on: the impact, the arguments, the evidence with provenance, the run.
  await expect(page.getByText("refunds $240.00 on order ord_1042", { exact: true })).toBeVisible();
  await expect(page.getByLabel("Proposed arguments")).toContainText('"amountCents": 24000');
  await expect(page.getByRole("list", { name: "Evidence" }).getByRole("listitem").first()).toBeVisible();
  await expect(page.getByRole("link", { name: waitingApproval, exact: true })).toHaveAttribute("href", `/runs/${waitingApproval}`);
  await expect(packetStatus(page)).toHaveText("Pending");

  // A second reviewer opens the same packet while it is still pending.
  const otherContext = await browser.newContext({ storageState: storageStateFile("reviewer") });
  const other = await otherContext.newPage();
  await other.goto(packetUrl);
  await expect(packetStatus(other)).toHaveText("Pending");

  // Edit with an invalid amount: the field error shows next to the arguments and nothing is decided.
  await page.getByRole("radio", { name: "Edit" }).click();
  const args = page.getByLabel("Arguments (JSON)");
  const proposed = JSON.parse(await args.inputValue()) as Record<string, unknown>;
  expect(proposed.amountCents).toBe(24000);
  await args.fill(JSON.stringify({ ...proposed, amountCents: -5 }, null, 2));
  await page.getByRole("button", { name: "Edit and approve" }).click();
  await expect(page.getByText("amountCents: The amount must be more than zero.")).toBeVisible();
  await expect(args).toHaveAttribute("aria-invalid", "true");
  await page.reload();
  await expect(packetStatus(page)).toHaveText("Pending");

  // Approve: a success message and the packet's new status.
  await page.getByRole("radio", { name: "Approve" }).click();
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByText("Decision recorded. The packet is now approved.")).toBeVisible();
  await expect(packetStatus(page)).toHaveText("Approved");
  await expect(page.getByRole("radio", { name: "Reject" })).toHaveCount(0);

  // The second reviewer, still looking at the pending packet, rejects it: they lost the race.
  await other.getByRole("radio", { name: "Reject" }).click();
  await other.getByLabel("Reason (the agent receives it)").fill("The customer already got a voucher.");
  await other.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(other.getByText(/^Someone else decided this packet first\. This packet was already decided \(approved\) by reviewer@example\.com\.$/)).toBeVisible();
  await expect(packetStatus(other)).toHaveText("Approved");
  await otherContext.close();

  // The inbox no longer lists it.
  await page.goto("/inbox");
  await expect(page.getByRole("article").filter({ hasText: "payments.refund" })).toHaveCount(0);
});
