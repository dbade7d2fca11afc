import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";

// Retry: the payment provider is down, so the refund run fails (it cannot read the order); once the
// provider is back, an operator retries the failed step from the run page and the run refunds — once.

test("an operator retries a run that failed while the payment provider was down", async ({ page, request }) => {
  test.setTimeout(120_000);
  const api = tetherApi(request);
  const { orderId } = await api.createOrder({ amountCents: 4_500 }); // under the approval limit: no gate
  let runId: string;
  await api.setFaults("payments", { errorRate: 1 });
  try {
    ({ id: runId } = await api.startRun("refund-agent", { orderId, reason: "Never arrived." }));
    const failed = await api.waitForStatus(runId, ["FAILED"], 60_000);
    expect(failed.error).toMatch(/^Could not read order .*HTTP 503 unavailable/);
  } finally {
    await api.setFaults("payments", { errorRate: 0 });
  }

  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-status")).toContainText("Failed");
  // nothing is in doubt (the order was never read), so the recovery view names the retry as safe
  await expect(page.getByText("Retry the run", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Retry failed step" }).click();
  const dialog = page.getByRole("dialog", { name: "Retry the failed step?" });
  await dialog.getByLabel(/Reason/).fill("The payment provider is back.");
  await dialog.getByRole("button", { name: "Retry", exact: true }).click();
  await expect(page.getByText("The run is queued again from its last checkpoint.")).toBeVisible({ timeout: 15_000 });

  await api.waitForStatus(runId, ["COMPLETED"], 30_000);
  expect(await api.ledger(runId, "payments")).toHaveLength(1);
  await page.getByLabel("Filter events").fill("run.retried");
  await expect(
    page.getByRole("region", { name: "Trace events" }).getByRole("listitem").filter({ hasText: "run.retried" }),
  ).toContainText("by operator@example.com — The payment provider is back.");
});
