import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";
import { openConsoleDatabase } from "./console-db";

// A run whose stored state no longer fits its schema (a bad migration, a hand edit): the operator still
// opens its page and reads why, the stored text and the trace — not an error page.

test("an operator opens a run whose stored state is unreadable", async ({ page, request }) => {
  const api = tetherApi(request);
  const { orderId } = await api.createOrder({ amountCents: 4_500 }); // under the approval limit: the run finishes alone
  const { id: runId } = await api.startRun("refund-agent", { orderId, reason: "Wrong size." });
  await api.waitForStatus(runId, ["COMPLETED"]);

  // The spec edits the e2e database file directly (Prisma's generated client does not load in Playwright's runner).
  const db = openConsoleDatabase();
  try {
    const { state } = db.prepare("SELECT state FROM Run WHERE id = ?").get(runId) as { state: string };
    db.prepare("UPDATE Run SET state = ? WHERE id = ?").run(
      JSON.stringify({ ...JSON.parse(state), facts: "broken by hand" }),
      runId,
    );
  } finally {
    db.close();
  }

  await page.goto(`/runs/${runId}`);
  await expect(page.getByRole("heading", { level: 1, name: runId })).toBeVisible();
  const alert = page.getByRole("alert").filter({ hasText: "This run's saved state could not be read" });
  await expect(alert).toContainText("state does not match its schema (facts:");
  await expect(page.locator("section", { has: page.getByRole("heading", { name: "Stored state" }) })).toContainText(
    '"facts": "broken by hand"',
  );
  await page.getByLabel("Filter events").fill("payments.refund");
  await expect(
    page.getByRole("region", { name: "Trace events" }).getByRole("listitem").filter({ hasText: "tool.call" }).first(),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0); // no actions on a state nobody can load
});
