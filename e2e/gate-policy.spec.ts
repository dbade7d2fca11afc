import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";
import { storageStateFile } from "./fixtures";
import { openCell, ruleForm, cellLink } from "./permission-matrix";

// Gate policy the field asks for: a live countdown to a packet's deadline (with what happens then), and a
// permission rule that skips the gate when a predicate holds, written plainly and shown in words.

test.use({ storageState: storageStateFile("admin") });

test("a packet's deadline counts down live, in the inbox row and on the packet, with what happens at expiry", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { packet } = await tetherApi(request).startDeployAwaitingApproval(); // its gate: 1 h, then escalate to oncall

  await page.goto(`/inbox/${packet.id}`);
  const deadline = page.locator("time").filter({ hasText: /^expires in / });
  await expect(deadline).toHaveText(/^expires in (5\d min \d+ s|1 h)$/);
  await expect(page.getByText("then it escalates to oncall")).toBeVisible();
  // live: the next tick of the shared clock changes the words, the row's box does not move
  const before = await deadline.textContent();
  const box = await deadline.boundingBox();
  await expect.poll(() => deadline.textContent(), { timeout: 20_000 }).not.toBe(before);
  expect((await deadline.boundingBox())?.width).toBe(box?.width);

  // the list (virtualised; earlier runs' packets may be in view first): a deploy packet's row counts down too
  await page.goto("/inbox?tool=deploys.run_migration");
  const row = page.getByRole("article").first();
  await expect(row.locator("time").filter({ hasText: /^(expires in .+|expired)$/ })).toHaveCount(1);
  await expect(row).toContainText("then it escalates to oncall");
});

test("an admin writes 'skip the gate when amountCents ≤ 2000'; the matrix says it in words; a rule that asks no one refuses it", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const agent = "deploy-agent";
  const tool = "mail.send"; // deploy-agent has no rule of its own for it
  await openCell(page, agent, tool);
  const form = ruleForm(page, agent, tool, "New rule");
  await form.getByLabel("Step").selectOption("*");
  await form.getByLabel("Effect", { exact: true }).selectOption({ label: "Allow" });
  await form.getByRole("button", { name: "Skip the gate when…" }).click();
  const condition = form.getByRole("group", { name: "Condition 1" });
  await condition.getByLabel("Argument path").fill("amountCents");
  await condition.getByLabel("Value").fill("2000");
  await expect(condition.getByLabel("Operator")).toHaveValue("lte");
  await expect(condition.getByLabel("Then")).toHaveValue("skip_gate");
  await expect(condition).toContainText("Skip the gate when amountCents ≤ 2000");

  // on a rule that allows anyway, skipping a gate means nothing: refused, with the field
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(condition).toContainText("a condition can skip the gate only on a rule that requires approval");

  await form.getByLabel("Effect", { exact: true }).selectOption({ label: "Require approval" });
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Saved ${agent}/${tool} (all steps): require approval, version 1` }),
  ).toBeVisible();
  try {
    await expect(cellLink(page, agent, tool)).toHaveAccessibleName(
      `${agent} × ${tool}: Require approval, 1 condition, skip the gate when amountCents ≤ 2000`,
    );
    await expect(cellLink(page, agent, tool)).toContainText("skip the gate when amountCents ≤ 2000");
  } finally {
    const saved = ruleForm(page, agent, tool);
    await saved.getByRole("button", { name: "Remove rule" }).click();
    await page
      .getByRole("dialog", { name: `Remove the rule ${agent}/${tool}?` })
      .getByRole("button", { name: "Remove rule" })
      .click();
    await expect(page.getByRole("status").filter({ hasText: `Removed ${agent}/${tool}.` })).toBeVisible();
  }
});
