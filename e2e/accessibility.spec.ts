import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { tetherApi } from "./api";
import { storageStateFile } from "./fixtures";

// axe on every main page, whole (the shell included), signed in as the admin who sees every section:
// no serious or critical violation (WCAG 2 A/AA rules). The sections' own specs check their pages'
// behaviour; this one keeps the product accessible as a whole.

test.use({ storageState: storageStateFile("admin") });
test.describe.configure({ timeout: 90_000 });

async function expectAccessible(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  const serious = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")}`,
    );
  expect(serious, `${path}\n${serious.join("\n")}`).toEqual([]);
}

for (const path of [
  "/inbox",
  "/inbox/history",
  "/runs",
  "/schedules",
  "/evals",
  "/admin/agents",
  "/admin/tools",
  "/admin/permissions",
  "/admin/users",
  "/admin/tokens",
  "/admin/audit",
]) {
  test(`${path} has no serious accessibility violations`, async ({ page }) => {
    await expectAccessible(page, path);
  });
}

test("a packet page and its run's page have no serious accessibility violations", async ({ page, request }) => {
  const { runId, packet } = await tetherApi(request).startRefundAwaitingApproval();
  await expectAccessible(page, `/inbox/${packet.id}`);
  await expectAccessible(page, `/runs/${runId}`);
});
