import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { storageStateFile } from "./fixtures";

// The admin's API tokens page: a token is shown once (then only its prefix), works against the HTTP
// API, and stops working when revoked (after a confirmation). Plus accessibility checks of the admin pages.

test.use({ storageState: storageStateFile("admin") });
// Pages that build a session, a form and a refresh per step: generous on a busy 2-core machine.
test.describe.configure({ timeout: 90_000 });

const tokenRow = (page: Page, name: string) =>
  page.getByRole("table", { name: "API tokens" }).getByRole("row").filter({ hasText: name });

test("an admin creates an API token, sees it once, and revokes it", async ({ page, request }) => {
  const name = `e2e token ${Date.now()}`;
  await page.goto("/admin/tokens");
  await expect(page).toHaveTitle("API tokens · Tether");
  await expect(page.getByRole("heading", { name: "API tokens", level: 1 })).toBeVisible();

  // a token needs a name and at least one scope
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Give the token at least one scope.")).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveAttribute("aria-invalid", "true");

  await page.getByLabel("Name").fill(name);
  await page.getByRole("checkbox", { name: /runs:read/ }).check();
  await page.getByRole("button", { name: "Create token" }).click();

  const panel = page.getByRole("region", { name: `Copy the token “${name}” now` });
  await expect(panel).toContainText("It is shown only this once");
  const token = await panel.getByLabel("New API token").inputValue();
  expect(token).toMatch(/^tth_[\w-]{20,}$/);
  await expect(panel.getByLabel("New API token")).toBeFocused();
  await panel.getByRole("button", { name: "Copy" }).click();
  await expect(panel.getByRole("status")).toHaveText(/Copied to the clipboard\.|Could not copy/);

  // listed by name, prefix and scopes — never the token itself
  const row = tokenRow(page, name);
  await expect(row).toContainText("runs:read");
  await expect(row).toContainText(`${token.slice(0, 8)}…`);
  await expect(row).toContainText("Active");
  await expect(row).toContainText("never");
  await page.reload();
  await expect(tokenRow(page, name)).toBeVisible();
  await expect(page.getByText(token)).toHaveCount(0);
  await expect(page.getByRole("region", { name: /Copy the token/ })).toHaveCount(0);

  // the token works against the API, and its last use shows
  expect((await request.get("/api/runs?limit=1", { headers: { authorization: `Bearer ${token}` } })).status()).toBe(
    200,
  );
  await page.reload();
  await expect(tokenRow(page, name).getByRole("cell").nth(3)).not.toHaveText("never");

  // revoke: a confirmation first; Cancel changes nothing
  await tokenRow(page, name)
    .getByRole("button", { name: `Revoke token ${name}` })
    .click();
  const dialog = page.getByRole("dialog", { name: `Revoke the token “${name}”?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(tokenRow(page, name)).toContainText("Active");

  await tokenRow(page, name)
    .getByRole("button", { name: `Revoke token ${name}` })
    .click();
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(dialog).toBeHidden();
  await expect(tokenRow(page, name)).toContainText("Revoked");
  await expect(tokenRow(page, name).getByRole("button", { name: /Revoke/ })).toHaveCount(0);
  expect((await request.get("/api/runs?limit=1", { headers: { authorization: `Bearer ${token}` } })).status()).toBe(
    401,
  );
});

// One test per page: axe takes seconds on a busy 2-core machine.
for (const [path, heading] of [
  ["/admin/tokens", "API tokens"],
  ["/admin/users", "Users"],
  ["/admin/tools", "Tools"],
  ["/admin/agents", "Agents"],
] as const) {
  test(`${path} has no serious accessibility violations`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.goto(path);
    await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
    // A picture for reviewing the page (test-results only; the matrix is the README's admin picture).
    await page.screenshot({
      path: `test-results/e2e-screenshots/admin-${path.split("/").at(-1)}.png`,
      fullPage: true,
      animations: "disabled",
    });
    // The sidebar belongs to the shell (components/shell); these pages are the main region.
    const { violations } = await new AxeBuilder({ page }).include("main").analyze();
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious.map((v) => `${v.id} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
  });
}
