import { expect, test } from "@playwright/test";
import { demoEmail, storageStateFile } from "./fixtures";

// Workspaces in the console: old URLs land in a workspace (/w/<slug>/…); an instance admin creates a workspace,
// which starts empty, and switches between it and the default one; a person who is not a member is told the
// workspace does not exist.

test.use({ storageState: storageStateFile("admin") });

test("an admin creates a workspace, works in it at /w/<slug>, switches back; a stranger gets 404", async ({
  page,
  browser,
}) => {
  // A dozen page loads in two browsers: on a machine running two suites at once they took more than the default 30 s.
  test.setTimeout(90_000);
  await page.goto("/runs");
  await expect(page).toHaveURL(/\/w\/default\/runs$/); // an old URL, in the default workspace
  await expect(page.getByRole("region", { name: "Workspace" })).toContainText("Default");

  const slug = `e2e-${Date.now().toString(36)}`;
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Workspaces", exact: true })
    .click();
  await expect(page).toHaveURL(/\/w\/default\/admin\/workspaces$/);
  const form = page.getByRole("form", { name: "Create a workspace" });
  await form.getByLabel("Name").fill(`Team ${slug}`);
  await form.getByLabel("Slug").fill(slug);
  await form.getByRole("button", { name: "Create workspace" }).click();
  await expect(page.getByText(`Workspace Team ${slug} created at /w/${slug}.`)).toBeVisible();

  // The new workspace has none of the default one's runs; its sidebar links stay inside it.
  await page.goto(`/w/${slug}/runs`);
  await expect(page.getByText("No runs yet")).toBeVisible();
  await expect(page.getByRole("region", { name: "Workspace" })).toContainText(`Team ${slug}`);
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Inbox", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/inbox$`));
  // An old URL now lands in the workspace the browser last opened.
  await page.goto("/runs");
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/runs$`));

  // The switcher leads back to the default workspace, whose runs are still there.
  await page.getByRole("region", { name: "Workspace" }).getByText("Switch workspace").click();
  await page
    .getByRole("region", { name: "Workspace" })
    .getByRole("link", { name: /Default/ })
    .click();
  await expect(page).toHaveURL(/\/w\/default\/inbox$/);

  // A reviewer who is not a member: the workspace does not exist for them.
  const reviewer = await browser.newContext({ storageState: storageStateFile("reviewer") });
  const stranger = await reviewer.newPage();
  const answer = await stranger.goto(`/w/${slug}/inbox`);
  expect(answer?.status()).toBe(404);
  await expect(stranger.getByRole("heading", { name: "Page not found" })).toBeVisible();

  // Added as a member, the reviewer opens it; taken out again, it is gone for them at their next request.
  await page.goto(`/w/${slug}/admin/workspaces`);
  const add = page.getByRole("form", { name: "Add a person to the workspace" });
  await add.getByLabel("Email").fill(demoEmail("reviewer"));
  await add.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText(`${demoEmail("reviewer")} is reviewer in Team ${slug}.`)).toBeVisible();
  expect((await stranger.goto(`/w/${slug}/inbox`))?.status()).toBe(200);
  await page.getByRole("button", { name: `Remove ${demoEmail("reviewer")} from Team ${slug}` }).click();
  await page.getByRole("button", { name: "Remove from workspace" }).click();
  await expect(page.getByRole("region", { name: `People of Team ${slug}` })).not.toContainText(demoEmail("reviewer"));
  expect((await stranger.goto(`/w/${slug}/inbox`))?.status()).toBe(404);
  await reviewer.close();
});
