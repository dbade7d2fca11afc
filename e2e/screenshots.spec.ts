import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { tetherApi } from "./api";
import { storageStateFile } from "./fixtures";

// The README's pictures: the main pages at 1280×800, written to test-results/e2e-screenshots on every
// run; with UPDATE_SCREENSHOTS=1 also copied to docs/screenshots (committed, so a plain test run does
// not leave the working tree dirty). Signed in as the admin, who sees every section.

test.use({ storageState: storageStateFile("admin") });

const root = path.resolve(__dirname, "..");
const shots = path.join(root, "test-results", "e2e-screenshots");
const docs = path.join(root, "docs", "screenshots");

async function shoot(page: Page, url: string, name: string, ready: (page: Page) => Locator) {
  await page.goto(url);
  await expect(ready(page)).toBeVisible();
  mkdirSync(shots, { recursive: true });
  const file = path.join(shots, name);
  await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    mkdirSync(docs, { recursive: true });
    copyFileSync(file, path.join(docs, name));
  }
}

test("the main pages", async ({ page, request }) => {
  test.setTimeout(90_000);
  expect(page.viewportSize()).toEqual({ width: 1280, height: 800 });
  const { runId, packet } = await tetherApi(request).startRefundAwaitingApproval();
  await shoot(page, "/inbox", "inbox.png", (p) => p.getByRole("heading", { name: "Inbox", level: 1 }));
  await shoot(page, `/inbox/${packet.id}`, "packet.png", (p) => p.getByRole("heading", { level: 1 }));
  await shoot(page, "/runs", "runs.png", (p) => p.getByRole("table"));
  await shoot(page, `/runs/${runId}`, "run.png", (p) => p.getByRole("heading", { level: 1 }));
});
