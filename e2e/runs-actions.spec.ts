import { expect, test } from "@playwright/test";
import { storageStateFile } from "./fixtures";
import { tetherApi } from "./api";

// An operator's actions on a run, from the UI: cancel (with confirmation) and fork from a checkpoint.
// A reviewer sees no actions (and the server refuses them anyway: tests/run-actions.int.test.ts).

test.describe("as an operator", () => {
  test.describe.configure({ timeout: 90_000 });
  test("cancels a waiting run after confirming", async ({ page, request }) => {
    const api = tetherApi(request);
    const { runId } = await api.startRefundAwaitingApproval();
    await page.goto(`/runs/${runId}`);
    await page.getByRole("button", { name: "Cancel run" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this run?" });
    await expect(dialog).toBeVisible();
    // Changing one's mind leaves the run alone.
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(dialog).toBeHidden();
    expect((await api.getRun(runId)).status).toBe("WAITING_APPROVAL");

    await page.getByRole("button", { name: "Cancel run" }).click();
    await dialog.getByLabel(/Reason/).fill("Wrong customer: a duplicate request.");
    await dialog.getByRole("button", { name: "Cancel run" }).click();
    await expect(page.getByText("The run is cancelled.")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("run-status")).toContainText("Cancelled");
    await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
    await page.getByLabel("Filter events").fill("run.cancelled"); // the virtualized timeline renders only rows in view
    await expect(
      page.getByRole("region", { name: "Trace events" }).getByRole("listitem").filter({ hasText: "run.cancelled" }),
    ).toContainText("Wrong customer");
    expect((await api.getRun(runId)).status).toBe("CANCELLED");
  });

  test("forks a new run from a chosen checkpoint", async ({ page, request }) => {
    const { runId } = await tetherApi(request).startRefundAwaitingApproval();
    await page.goto(`/runs/${runId}`);
    await page.getByLabel("Fork from checkpoint").selectOption({ label: "#1 · step 0" });
    await page.getByRole("button", { name: "Fork run" }).click();
    const dialog = page.getByRole("dialog", { name: /^Fork a new run from checkpoint #\d+\?$/ });
    await expect(dialog).toHaveAccessibleName("Fork a new run from checkpoint #1?");
    await dialog.getByRole("button", { name: "Fork", exact: true }).click();
    await expect(page).not.toHaveURL(new RegExp(`/runs/${runId}$`), { timeout: 20_000 });
    // The fork's header links back to the run it came from.
    await expect(page.getByRole("link", { name: runId, exact: true })).toBeVisible();
    await page.getByLabel("Filter events").fill("run.forked");
    await expect(
      page.getByRole("region", { name: "Trace events" }).getByText("run.forked", { exact: true }),
    ).toBeVisible();
  });
});

test.describe("as a reviewer", () => {
  test.use({ storageState: storageStateFile("reviewer") });

  test("reads a run but sees no operator actions", async ({ page, request }) => {
    const { runId } = await tetherApi(request).startRefundAwaitingApproval();
    await page.goto(`/runs/${runId}`);
    await expect(page.getByRole("region", { name: "Trace events" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Run actions" })).toHaveCount(0);
    for (const name of ["Cancel run", "Fork run", "Retry failed step", "Resume run"])
      await expect(page.getByRole("button", { name })).toHaveCount(0);
  });
});
