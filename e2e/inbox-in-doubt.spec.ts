import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";
import { storageStateFile } from "./fixtures";

// An effect whose outcome is unknown, in a real browser: the migration's answer is lost after it ran.
// The packet asks in words that say what each answer does (no Approve that means "run it again"),
// "Check now" asks the deploy system, "It happened" records its receipt, and the run then finishes on
// its own: the simulated deploy system completes the deploy and calls back, with no manual step.

test.use({ storageState: storageStateFile("operator") });
test.describe.configure({ timeout: 180_000 });

test("an operator settles an unknown outcome with Check now and It happened; the migration ran once and the run completes", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  const { runId, packet } = await api.startDeployAwaitingApproval();
  await api.setFaults("deploys", { timeoutAfterApply: 1, holdMs: 300 }); // the next migration runs, its answer is lost
  try {
    await page.goto(`/inbox/${packet.id}`);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await page
      .getByRole("dialog", { name: "Approve this action?" })
      .getByRole("button", { name: "Confirm approval" })
      .click();
    await expect(page.getByText("Decision recorded. The packet is now approved.")).toBeVisible();
    await api.waitForStatus(runId, ["NEEDS_ATTENTION"], 60_000);
  } finally {
    await api.setFaults("deploys", { timeoutAfterApply: 0 });
  }
  const inDoubt = await api.waitForPacket(runId);
  expect(inDoubt.kind).toBe("UNKNOWN_OUTCOME");

  await page.goto(`/inbox/${inDoubt.id}`);
  const decisions = page.getByRole("radiogroup", { name: "Decision" });
  await expect(decisions.getByRole("radio")).toHaveText([
    "It happened",
    "It did not happen — run it again",
    "It did not happen — skip it",
    "Redirect",
  ]);
  await expect(page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);

  // Running it again needs the person to say they checked.
  await decisions.getByRole("radio", { name: "It did not happen — run it again" }).click();
  await expect(page.getByRole("button", { name: "Run it again" })).toBeDisabled();

  await page.getByRole("button", { name: "Check now" }).click();
  const [migration] = await api.ledger(runId, "deploys");
  const deployId = (migration.data as { deployId: string }).deployId;
  await expect(page.getByRole("status").filter({ hasText: "It happened" })).toContainText(`receipt ${deployId}`);
  await expect(decisions.getByRole("radio", { name: "It happened" })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByLabel("Receipt (optional): the system's id for it")).toHaveValue(deployId);
  await page.getByRole("button", { name: "Record that it happened" }).click();
  await expect(page.getByText("Decision recorded. The packet is now confirmed.")).toBeVisible();

  // The deploy system finishes the migration by itself and calls back; the run verifies it and completes.
  await api.waitForStatus(runId, ["COMPLETED"], 60_000);
  expect((await api.ledger(runId, "deploys")).filter((e) => e.action === "migrate")).toHaveLength(1);
});
