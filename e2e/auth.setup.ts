import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test as setup } from "@playwright/test";
import { DEMO_PASSWORD, demoEmail, ROLES, storageStateFile } from "./fixtures";

// Signs in each demo account through the real sign-in page, once per run, and saves the browser's
// state (the session cookie) for the specs: test.use({ storageState: storageStateFile("reviewer") }).

for (const role of ROLES) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await page.goto("/signin");
    await page.getByLabel("Email").fill(demoEmail(role));
    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // A reviewer lands on the inbox, the others on the runs list, in the default workspace.
    await expect(page).toHaveURL(role === "reviewer" ? /\/w\/default\/inbox$/ : /\/w\/default\/runs$/);
    await expect(page.getByRole("region", { name: "Signed in as" })).toContainText(demoEmail(role));
    const file = path.resolve(__dirname, "..", storageStateFile(role));
    mkdirSync(path.dirname(file), { recursive: true });
    await page.context().storageState({ path: file });
  });
}
