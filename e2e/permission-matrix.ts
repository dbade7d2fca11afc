import { expect, type Page } from "@playwright/test";

// The admin's permission matrix, as the specs drive it: open a cell, read or edit its rule.

export const cellLink = (page: Page, agent: string, tool: string) =>
  page.getByRole("link", { name: new RegExp(`^${agent} × ${tool.replace(".", "\\.")}: `) });
export const ruleForm = (page: Page, agent: string, tool: string, title = "Rule for all steps") =>
  page.getByRole("form", { name: `${title}: ${agent} × ${tool}` });

export async function openCell(page: Page, agent: string, tool: string) {
  await page.goto("/admin/permissions");
  await cellLink(page, agent, tool).click();
  await expect(page.getByRole("heading", { name: `${agent} × ${tool}`, level: 2 })).toBeVisible();
}

/** Saves the cell's all-steps rule after `edit` filled its form; waits for the success message. */
export async function saveRule(
  page: Page,
  agent: string,
  tool: string,
  edit: (form: ReturnType<typeof ruleForm>) => Promise<unknown>,
  effect = "allow",
) {
  await openCell(page, agent, tool);
  const form = ruleForm(page, agent, tool);
  await edit(form);
  await form.getByRole("button", { name: "Save rule" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Saved ${agent}/${tool} (all steps): ${effect}` }),
  ).toBeVisible();
}

/** Sets the all-steps rule's effect in the matrix UI. */
export async function setEffect(
  page: Page,
  agent: string,
  tool: string,
  effect: "Deny" | "Allow" | "Require approval",
) {
  await saveRule(
    page,
    agent,
    tool,
    (form) => form.getByLabel("Effect", { exact: true }).selectOption({ label: effect }),
    effect.toLowerCase(),
  );
}
