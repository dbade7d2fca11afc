import { expect, test, type Page } from "@playwright/test";
import { storageStateFile } from "./fixtures";

// The tool registry and the people: an admin registers an HTTP tool (the server's validation shows on
// the form), disables and enables it; adds a person, changes their role, disables them — and cannot
// demote or disable themselves.

test.use({ storageState: storageStateFile("admin") });
// Pages that build a session, a form and a refresh per step: generous on a busy 2-core machine.
test.describe.configure({ timeout: 90_000 });

const row = (page: Page, tableName: string, text: string) =>
  page.getByRole("table", { name: tableName }).getByRole("row").filter({ hasText: text });

test("an admin registers an HTTP tool, then disables and enables it", async ({ page }) => {
  const name = `http.crm_${Date.now().toString(36)}`;
  await page.goto("/admin/tools");
  const registry = page.getByRole("table", { name: "The tool registry" });
  await expect(row(page, "The tool registry", "payments.refund")).toContainText("idempotent");
  await expect(row(page, "The tool registry", "deploys.run_migration")).toContainText("unsafe");

  const form = page.getByRole("form", { name: "Register an HTTP tool" });
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("Description", { exact: true }).fill("Update a customer in the CRM.");
  await form.getByLabel("URL", { exact: true }).fill("https://crm.example.com/customers/{{customerId}}");
  // idempotent without the header that carries the key: refused, on the field
  await form.getByRole("button", { name: "Register tool" }).click();
  await expect(
    page.getByText("An idempotent tool needs the header that carries the idempotency key (e.g. Idempotency-Key)."),
  ).toBeVisible();
  await expect(form.getByLabel("Idempotency header (idempotent tools)")).toHaveAttribute("aria-invalid", "true");

  await form.getByLabel("Idempotency header (idempotent tools)").fill("Idempotency-Key");
  await form.getByLabel("Impact sentence").fill("updates customer {{customerId}} in the CRM");
  await form.getByRole("button", { name: "Register tool" }).click();
  await expect(form.getByRole("status")).toContainText(`${name} registered.`);
  const tool = row(page, "The tool registry", name);
  await expect(tool).toContainText("HTTP");
  await expect(tool).toContainText("execute");
  await expect(tool).toContainText("idempotent");
  await expect(tool).toContainText("“updates customer {{customerId}} in the CRM”");
  await expect(registry).toContainText(`registered by admin@example.com`);

  await tool.getByRole("button", { name: `Disable ${name}` }).click();
  await expect(tool).toContainText("Disabled");
  await tool.getByRole("button", { name: `Enable ${name}` }).click();
  await expect(tool.getByRole("button", { name: `Disable ${name}` })).toBeVisible();
  await expect(tool).not.toContainText("Disabled");

  // the new tool is a column of the permission matrix, denied until granted
  await page.goto("/admin/permissions");
  await expect(page.getByRole("link", { name: `refund-agent × ${name}: no rule: denied` })).toBeVisible();
});

test("an admin adds a person, changes their role and disables them; never themselves", async ({ page }) => {
  const email = `person-${Date.now().toString(36)}@example.com`;
  await page.goto("/admin/users");
  const form = page.getByRole("form", { name: "Add a person" });
  await form.getByLabel("Email", { exact: true }).fill(email);
  await form.getByLabel("Name (optional)").fill("Pat Person");
  await form.getByLabel("Role", { exact: true }).selectOption({ label: "Reviewer" });
  await form.getByLabel("Initial password").fill("short");
  await form.getByRole("button", { name: "Add person" }).click();
  await expect(form.getByLabel("Initial password")).toHaveAttribute("aria-invalid", "true");

  await form.getByLabel("Initial password").fill("a sturdy passphrase 42");
  await form.getByRole("button", { name: "Add person" }).click();
  await expect(form.getByRole("status")).toContainText(`${email} can now sign in as reviewer.`);
  const person = row(page, "People who can sign in to the console", email);
  await expect(person).toContainText("Active");

  await person.getByLabel(`Role of ${email}`, { exact: true }).selectOption({ label: "Operator" });
  await person.getByRole("button", { name: `Change role of ${email}` }).click();
  await expect(person.getByRole("status")).toContainText(`${email} is now operator.`);
  await page.reload();
  await expect(
    row(page, "People who can sign in to the console", email).getByLabel(`Role of ${email}`, { exact: true }),
  ).toHaveValue("operator");

  await row(page, "People who can sign in to the console", email)
    .getByRole("button", { name: `Disable ${email}` })
    .click();
  await expect(row(page, "People who can sign in to the console", email)).toContainText("Disabled");

  // your own row: no role change, no disabling
  const me = row(page, "People who can sign in to the console", "admin@example.com");
  await expect(me).toContainText("(you)");
  await expect(me.getByLabel("Role of admin@example.com", { exact: true })).toBeDisabled();
  await expect(me.getByRole("button", { name: /Disable|Change role/ })).toHaveCount(0);
  await expect(me).toContainText("You cannot change your own role.");
});
