import { expect, test, type Page } from "@playwright/test";
import { tetherApi } from "./api";
import { openConsoleDatabase, storedDate } from "./console-db";
import { storageStateFile } from "./fixtures";

// The admin Agents page: each agent with its versions (label, newest or not, runs active / waiting /
// parked); an old version's waiting run moved to the newest with the page's upgrade button; a version's
// recent finished runs replayed on the current code, told as "replayed N runs: X same, Y differ".

test.use({ storageState: storageStateFile("admin") });
// A replay re-drives runs in a scratch database on the server: seconds on a busy 2-core machine.
test.describe.configure({ timeout: 90_000 });

const AGENTS = ["refund-agent", "deploy-agent", "outreach-agent"];
const COUNTS = /\d+ active · \d+ waiting · \d+ parked/;

const versionsOf = (page: Page, slug: string) => page.getByRole("table", { name: `Versions of ${slug}` });
/** A version's row, found by its run counts' label (an older row's upgrade button names the newest version too). */
const versionRow = (page: Page, slug: string, version: string) =>
  versionsOf(page, slug)
    .getByRole("row")
    .filter({ has: page.getByLabel(`${slug} ${version}: `) });

/**
 * A run pinned to a version this deployment no longer loads, as after a deploy of changed code: the
 * version's record and the run's pin are written into the console's database.
 */
function pinToOldVersion(runId: string, version: string, label: string) {
  const db = openConsoleDatabase();
  try {
    db.prepare(
      `INSERT INTO "AgentVersion" ("slug", "version", "label", "instructions", "model", "tools", "plan", "firstSeenAt") VALUES ('refund-agent', ?, ?, ?, NULL, '["orders.get","payments.refund"]', '[]', ?)`,
    ).run(
      version,
      label,
      "Refund the order if it qualifies (an older wording).",
      storedDate(new Date(Date.now() - 86_400_000)),
    );
    db.prepare(`UPDATE "Run" SET "agentVersion" = ? WHERE "id" = ?`).run(version, runId);
  } finally {
    db.close();
  }
}

test("an admin reads each agent's versions with their run counts and upgrades an old version's waiting run", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  const { runId } = await api.startRefundAwaitingApproval();
  const newest = (await api.getRun(runId)).agentVersion;
  const old = `e2e${Date.now().toString(16)}`.slice(0, 12);
  pinToOldVersion(runId, old, "before the deploy");

  await page.goto("/admin/agents");
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  for (const slug of AGENTS) {
    const newestRow = versionsOf(page, slug).getByRole("row").filter({ hasText: "newest" });
    await expect(newestRow).toHaveCount(1);
    await expect(newestRow).toContainText(COUNTS);
  }
  const current = versionRow(page, "refund-agent", newest);
  await expect(current).toContainText("newest");

  const row = versionRow(page, "refund-agent", old);
  await expect(row).toContainText("(before the deploy)");
  await expect(row).toContainText("not loaded");
  await expect(row.getByLabel(`refund-agent ${old}: 0 active, 1 waiting, 0 parked`)).toBeVisible();

  await row.getByRole("button", { name: /^Upgrade 1 run to / }).click();
  const dialog = page.getByRole("dialog", { name: `Upgrade the runs of refund-agent ${old} (before the deploy)?` });
  await dialog.getByRole("button", { name: "Upgrade runs" }).click();
  await expect(row.getByRole("status")).toContainText(`1 run moved to ${newest}`);
  await expect(row.getByLabel(`refund-agent ${old}: 0 active, 0 waiting, 0 parked`)).toBeVisible();
  await expect(row.getByRole("button", { name: /^Upgrade / })).toHaveCount(0);

  // The run is on the newest version and has not ended: queued to take its next step there.
  const moved = await api.getRun(runId);
  expect(moved.agentVersion).toBe(newest);
  expect(["QUEUED", "RUNNING", "WAITING_APPROVAL"]).toContain(moved.status);
});

test("an admin replays a version's recent finished runs on the current code and reads the summary", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  const { orderId } = await api.createOrder({ amountCents: 4_500 }); // under the approval limit: the run finishes alone
  const { id: runId } = await api.startRun("refund-agent", { orderId, reason: "Wrong size." });
  const { agentVersion } = await api.waitForStatus(runId, ["COMPLETED"]);

  await page.goto("/admin/agents");
  const row = versionRow(page, "refund-agent", agentVersion);
  await row.getByRole("button", { name: /^Replay recent runs of refund-agent / }).click();
  const summary = row.getByRole("status").filter({ hasText: "replayed" });
  await expect(summary).toContainText(/replayed \d+ runs: \d+ same, \d+ differ/, { timeout: 60_000 });
  const replayed = Number(/replayed (\d+) runs/.exec((await summary.textContent()) ?? "")?.[1]);
  expect(replayed).toBeGreaterThanOrEqual(1); // at least the run just finished
  expect(replayed).toBeLessThanOrEqual(20);

  // The replay is on the audit log, with its counts.
  await page.goto(`/admin/audit?target=${encodeURIComponent(`refund-agent@${agentVersion}`)}`);
  await expect(page.getByText("agents.replay", { exact: true }).first()).toBeVisible();
});
