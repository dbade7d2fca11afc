import { expect, test } from "@playwright/test";
import { E2E_API_TOKEN } from "./fixtures";

// The Schedules page: a schedule made over the API shows its cron, time zone and next fire times; the
// console's embedded worker fires it, and the fire appears in the history with a link to its run.

test("a schedule's next fire times, then its fire and run in the history", async ({ page, request }) => {
  test.setTimeout(60_000);
  const name = `e2e-${Date.now().toString(36)}`;
  // Every five seconds: the embedded worker fires it while the page is open; paused again at the end.
  const created = await request.post("/api/schedules", {
    headers: { authorization: `Bearer ${E2E_API_TOKEN}` },
    data: {
      name,
      agent: "deploy-agent",
      input: { migration: "0042_add_orders_index" },
      cron: "*/5 * * * * *",
      timeZone: "Europe/Berlin",
      overlap: "skip",
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id, upcoming } = (await created.json()) as { id: string; upcoming: string[] };
  try {
    await page.goto("/schedules");
    await expect(page.getByRole("heading", { level: 1, name: "Schedules" })).toBeVisible();
    const row = page.getByTestId("schedule-row").filter({ hasText: name });
    await expect(row).toContainText("*/5 * * * * *");
    await expect(row).toContainText("Europe/Berlin");
    await expect(row).toContainText(upcoming[1].slice(0, 19).replace("T", " "));

    // The history: reloaded until the first tick has fired (the page renders on the server).
    const fired = page.getByTestId("fire-row").filter({ hasText: name }).filter({ hasText: "started" }).first();
    await expect(async () => {
      await page.reload();
      await expect(fired).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await fired.getByRole("link").click();
    await expect(page).toHaveURL(/\/runs\/run_/);
    await expect(page.getByText("deploy-agent").first()).toBeVisible();
  } finally {
    await request.patch(`/api/schedules/${id}`, {
      headers: { authorization: `Bearer ${E2E_API_TOKEN}` },
      data: { paused: true },
    });
  }
});
