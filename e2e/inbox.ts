import type { Browser, Page } from "@playwright/test";
import { storageStateFile, type E2eRole } from "./fixtures";

// Acting in the inbox as the specs do: another person in a browser of their own, approving a packet.

/** Runs `act` in a new browser context signed in as `role`, and closes it. */
export async function asRole<T>(browser: Browser, role: E2eRole, act: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ storageState: storageStateFile(role) });
  try {
    return await act(await context.newPage());
  } finally {
    await context.close();
  }
}

/** Approves the packet open on `page`; the demo's refunds and migrations are high impact, so it confirms. */
export async function approveHighImpact(page: Page) {
  await page.getByRole("form", { name: "Approve packet" }).getByRole("button", { name: "Approve" }).click();
  await page
    .getByRole("dialog", { name: "Approve this action?" })
    .getByRole("button", { name: "Confirm approval" })
    .click();
}
