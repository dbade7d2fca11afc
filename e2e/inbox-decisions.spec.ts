import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { tetherApi } from "./api";
import { demoEmail, storageStateFile } from "./fixtures";

// The reviewer's inbox in a real browser against the real demo agents (embedded worker on): every
// decision on a packet page, the runs continuing afterwards, a lost race between two reviewers, a
// keyboard approval with its confirmation, a bulk approval, and axe on the inbox and a packet page.
// Each test starts its own runs through the HTTP API.

test.use({ storageState: storageStateFile("reviewer") });
test.describe.configure({ timeout: 180_000 }); // 2 shared cores: a refund run takes seconds to reach its gate

const packetStatus = (page: Page) => page.getByTestId("packet-status");
const runStatusLink = (page: Page, runId: string) => page.getByRole("link", { name: new RegExp(`^Run ${runId}: `) });

/** The inbox's own content; the sidebar belongs to the shell and is checked by the shell's specs. */
async function expectNoSeriousAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).include("main").analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

test("a reviewer approves, edits (an invalid amount first), rejects and redirects refunds, and the runs continue", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  const [approve, edit, reject, redirect] = await Promise.all(
    [1, 2, 3, 4].map(() => api.startRefundAwaitingApproval(24_000)),
  );

  // Approve: the packet says what would happen, in words and arguments, with evidence and the run.
  await page.goto(`/inbox/${approve.packet.id}`);
  await expect(page).toHaveTitle("Decision packet · Tether");
  await expect(page.getByTestId("packet-impact")).toHaveText(/^refunds \$240\.00 to card •\d{4}$/);
  await expect(page.getByRole("definition").filter({ hasText: approve.orderId }).first()).toBeVisible();
  await expect(page.getByRole("list", { name: "Evidence" }).getByRole("listitem").first()).toBeVisible();
  await expect(page.getByText("high impact", { exact: true })).toBeVisible();
  await expect(runStatusLink(page, approve.runId)).toHaveAttribute("href", `/w/default/runs/${approve.runId}`); // in the page's workspace: no redirect
  await expect(packetStatus(page)).toHaveText("Pending");
  await expectNoSeriousAxeViolations(page);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: "Approve this action?" });
  await expect(confirm).toContainText("refunds $240.00");
  await confirm.getByRole("button", { name: "Confirm approval" }).click();
  await expect(page.getByText("Decision recorded. The packet is now approved.")).toBeVisible();
  await expect(packetStatus(page)).toHaveText("Approved");
  await api.waitForStatus(approve.runId, ["COMPLETED"]);
  await page.reload();
  await expect(runStatusLink(page, approve.runId)).toHaveAccessibleName(`Run ${approve.runId}: Completed`);

  // Edit: the form is generated from payments.refund's schema; -5 is refused next to the field.
  await page.goto(`/inbox/${edit.packet.id}`);
  await page.getByRole("radio", { name: "Edit" }).click();
  const amount = page.getByLabel("Amount cents");
  await expect(amount).toHaveValue("24000");
  await amount.fill("-5");
  await page.getByRole("button", { name: "Edit and approve" }).click();
  await expect(page.getByText("Must be more than 0.")).toBeVisible();
  await expect(amount).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await amount.fill("12000");
  const changes = page.getByRole("list", { name: "Changes against the proposal" });
  await expect(changes).toContainText("amountCents");
  await expect(changes).toContainText("24000");
  await expect(changes).toContainText("12000");
  await page.getByRole("button", { name: "Edit and approve" }).click();
  const editConfirm = page.getByRole("dialog", { name: "Approve the edited action?" });
  await expect(editConfirm.getByRole("list", { name: "Your changes" })).toContainText("12000");
  await editConfirm.getByRole("button", { name: "Confirm edit and approve" }).click();
  await expect(page.getByText("Decision recorded. The packet is now edited.")).toBeVisible();
  const edited = await api.waitForStatus(edit.runId, ["COMPLETED"]);
  expect(edited.status).toBe("COMPLETED");

  // Reject with a reason (required: an empty one is refused first).
  await page.goto(`/inbox/${reject.packet.id}`);
  await page.getByRole("radio", { name: "Reject" }).click();
  await page.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(page.getByText("Say why you reject it: the agent receives the reason.")).toBeVisible();
  await page.getByLabel("Reason (the agent receives it)").fill("The customer already got a voucher.");
  await page.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(page.getByText("Decision recorded. The packet is now rejected.")).toBeVisible();
  await api.waitForStatus(reject.runId, ["COMPLETED"]);

  // Redirect with an instruction, chosen by keyboard (d), which focuses the instruction field.
  await page.goto(`/inbox/${redirect.packet.id}`);
  await expect(packetStatus(page)).toHaveText("Pending");
  const instruction = page.getByLabel("Instruction for the agent");
  await expect(async () => {
    await page.keyboard.press("d"); // retried until the page is interactive
    await expect(instruction).toBeFocused({ timeout: 1_000 });
  }).toPass();
  await instruction.fill("Offer store credit instead.");
  await expect(page.getByRole("radio", { name: "Redirect" })).toHaveAttribute("aria-checked", "true"); // typing "a"/"d" did not switch
  await page.getByRole("button", { name: "Redirect", exact: true }).click();
  await expect(page.getByText("Decision recorded. The packet is now redirected.")).toBeVisible();
  await api.waitForStatus(redirect.runId, ["COMPLETED"]);
  await page.reload();
  await expect(runStatusLink(page, redirect.runId)).toHaveAccessibleName(`Run ${redirect.runId}: Completed`);

  // The history shows who decided, and what the runs did next.
  await page.goto("/inbox/history");
  const row = page
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: new RegExp(`^Run ${reject.runId}: `) }) });
  await expect(row).toContainText("Rejected");
  await expect(row).toContainText(demoEmail("reviewer"));
  await expect(row).toContainText("reason: The customer already got a voucher.");
  await expect(row.getByRole("link", { name: new RegExp(`^Run ${reject.runId}: `) })).toContainText("Completed");
});

test("two reviewers decide the same packet: one wins, the other is told it lost the race", async ({
  page,
  browser,
  request,
}) => {
  const { packet } = await tetherApi(request).startRefundAwaitingApproval(24_000);
  const otherContext = await browser.newContext({ storageState: storageStateFile("operator") });
  const other = await otherContext.newPage();
  // The second reviewer's view is not refreshed by the live poll (a slow network), so it still offers the decision.
  await other.route("**/api/console/packets/**", (route) => route.abort());
  await other.goto(`/inbox/${packet.id}`);
  await other.getByRole("radio", { name: "Reject" }).click();
  await other.getByLabel("Reason (the agent receives it)").fill("Duplicate of another request.");

  await page.goto(`/inbox/${packet.id}`);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await page
    .getByRole("dialog", { name: "Approve this action?" })
    .getByRole("button", { name: "Confirm approval" })
    .click();
  await expect(page.getByText("Decision recorded. The packet is now approved.")).toBeVisible();

  await other.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(
    other.getByText(
      `Someone else decided this packet first. This packet was already decided (approved) by ${demoEmail("reviewer")}.`,
    ),
  ).toBeVisible();
  await expect(packetStatus(other)).toHaveText("Approved");
  // Once its live poll gets through again, the page says who decided while it was open.
  await other.unroute("**/api/console/packets/**");
  await expect(
    other.getByText(`This packet was decided while you had it open: approved by ${demoEmail("reviewer")}.`),
  ).toBeVisible({ timeout: 10_000 });
  await otherContext.close();
});

test("keyboard: j/k choose a packet on the list, a asks to confirm a high-impact approval, Enter confirms", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  await page.goto("/inbox?tool=deploys.run_migration");
  await expect(page.getByRole("heading", { name: "Inbox", level: 1 })).toBeVisible();
  const { runId, packet } = await api.startDeployAwaitingApproval();
  // The packet arrives without a reload.
  const row = page.getByRole("article").filter({ hasText: packet.id });
  await expect(row).toBeVisible({ timeout: 10_000 });
  await expectNoSeriousAxeViolations(page);
  await expect(page.getByRole("region", { name: "Keyboard shortcuts" })).toContainText("approve");

  for (let i = 0; i < 50 && (await row.getAttribute("data-cursor")) === null; i++) await page.keyboard.press("j");
  await expect(row).toHaveAttribute("data-cursor", "true");
  await page.keyboard.press("a");
  const confirm = page.getByRole("dialog", { name: "Approve this action?" });
  await expect(confirm).toContainText(`runs migration ${String(packet.args.migration)} on the production database`);
  await page.keyboard.press("Enter");
  await expect(page.getByText(`deploys.run_migration (${packet.id}): approved.`)).toBeVisible();
  await expect(row).toHaveCount(0);
  await api.waitForStatus(runId, ["WAITING_EVENT", "COMPLETED"]);

  // r rejects the selected packet: the reason field takes the typing, and its letters fire no shortcut.
  const second = await api.startDeployAwaitingApproval();
  const secondRow = page.getByRole("article").filter({ hasText: second.packet.id });
  await expect(secondRow).toBeVisible({ timeout: 10_000 });
  for (let i = 0; i < 50 && (await secondRow.getAttribute("data-cursor")) === null; i++) await page.keyboard.press("j");
  await page.keyboard.press("r");
  const reject = page.getByRole("dialog", { name: "Reject this action?" });
  const reason = reject.getByLabel("Reason (the agent receives it)");
  await expect(reason).toBeFocused();
  await page.keyboard.type("Wait for the release freeze to end, and ask again.");
  await expect(reason).toHaveValue("Wait for the release freeze to end, and ask again.");
  await expect(page.getByRole("dialog", { name: "Approve this action?" })).toHaveCount(0);
  await reject.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(page.getByText(`deploys.run_migration (${second.packet.id}): rejected.`)).toBeVisible();
  await api.waitForStatus(second.runId, ["COMPLETED"]);
});

test("bulk: two refunds approved at once, each listed in the confirmation, each with its own result", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  const [first, second] = await Promise.all([
    api.startRefundAwaitingApproval(15_000),
    api.startRefundAwaitingApproval(16_000),
  ]);
  await page.goto("/inbox?tool=payments.refund&sort=age");
  await expect(page).toHaveURL(/tool=payments\.refund/);
  await expect(page.getByTestId("inbox-count")).toHaveText(/^\d+\s*\(\d+ pending/);
  for (const { packet } of [first, second])
    await page.getByRole("checkbox", { name: `Select payments.refund packet ${packet.id}` }).check();
  await page.getByRole("region", { name: "Bulk decision" }).getByRole("button", { name: "Approve 2 selected" }).click();
  const confirm = page.getByRole("dialog", { name: "Approve 2 actions?" });
  const actions = confirm.getByRole("list", { name: "Actions to decide" }).getByRole("listitem");
  await expect(actions).toHaveCount(2);
  await expect(actions.filter({ hasText: first.packet.id })).toContainText("refunds $150.00");
  await expect(actions.filter({ hasText: second.packet.id })).toContainText("refunds $160.00");
  await confirm.getByRole("button", { name: "Approve all 2" }).click();
  const results = page.getByRole("region", { name: "Bulk decision results" });
  await expect(results.getByRole("listitem").filter({ hasText: first.packet.id })).toContainText("approved");
  await expect(results.getByRole("listitem").filter({ hasText: second.packet.id })).toContainText("approved");
  await Promise.all([api.waitForStatus(first.runId, ["COMPLETED"]), api.waitForStatus(second.runId, ["COMPLETED"])]);
});

test("assignment: claim a packet, find it under 'assigned to me', give it back", async ({ page, request }) => {
  const { packet } = await tetherApi(request).startDeployAwaitingApproval();
  await page.goto(`/inbox/${packet.id}`);
  await page.getByRole("button", { name: "Assign to me" }).click();
  await expect(page.getByText(`Assigned to you (${demoEmail("reviewer")})`)).toBeVisible();
  await page.goto("/inbox?mine=1");
  await expect(page.getByLabel("Assigned to me")).toBeChecked();
  await expect(page.getByRole("article").filter({ hasText: packet.id })).toBeVisible();
  await page.goto(`/inbox/${packet.id}`);
  await page.getByLabel("Assign to").selectOption(demoEmail("operator"));
  await page.getByRole("button", { name: "Assign", exact: true }).click();
  await expect(page.getByText(`Assigned to ${demoEmail("operator")}`, { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Unassign" }).click();
  await expect(page.getByText("Nobody has claimed it yet.")).toBeVisible();
});
