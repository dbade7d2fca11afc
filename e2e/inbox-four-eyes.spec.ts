import { expect, test, type Page } from "@playwright/test";
import { tetherApi } from "./api";
import { storageStateFile } from "./fixtures";
import { approveHighImpact, asRole } from "./inbox";
import { saveRule } from "./permission-matrix";

// Four eyes: an admin makes refunds need two approvals; the first reviewer's approval is recorded and the
// packet stays open (no edit, no second approval by the same person); a different person's approval lets
// the run refund — once.

test.use({ storageState: storageStateFile("admin") });

const setApprovals = (page: Page, approvals: number) =>
  saveRule(page, "refund-agent", "payments.refund", async (form) => {
    await form.getByText("Approval settings").click();
    await form.getByLabel("Approvals needed").fill(String(approvals));
  });

test("a refund that needs two approvers: the first approval is recorded, a different reviewer's lets the run act", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(120_000);
  const api = tetherApi(request);
  await setApprovals(page, 2);
  try {
    const { runId, packet } = await api.startRefundAwaitingApproval();

    await asRole(browser, "reviewer", async (reviewer) => {
      await reviewer.goto(`/inbox/${packet.id}`);
      await expect(reviewer.getByText("Needs 2 approvals from different reviewers; none yet.")).toBeVisible();
      const choices = reviewer.getByRole("radiogroup", { name: "Decision" });
      await expect(choices.getByRole("radio", { name: "Edit" })).toHaveCount(0); // an edited action would skip the first approver's check
      await approveHighImpact(reviewer);
      await expect(
        reviewer.getByText("Your approval is recorded. A different reviewer must give the next one."),
      ).toBeVisible();
      await expect(reviewer.getByText(/approved so far by reviewer@example\.com\. You approved already/)).toBeVisible();
      await expect(reviewer.getByRole("form", { name: "Approve packet" })).toHaveCount(0);
    });
    expect((await api.getRun(runId)).status).toBe("WAITING_APPROVAL");

    await asRole(browser, "operator", async (operator) => {
      await operator.goto(`/inbox/${packet.id}`);
      await expect(operator.getByText("approved so far by reviewer@example.com")).toBeVisible();
      await approveHighImpact(operator);
      await expect(operator.getByText("Decision recorded. The packet is now approved.")).toBeVisible();
    });

    await api.waitForStatus(runId, ["COMPLETED"]);
    const ledger = await (await request.get(`/api/sandbox/ledger?runId=${runId}&system=payments`)).json();
    expect(ledger.entries).toHaveLength(1);
    await page.goto(`/runs/${runId}`);
    await page.getByLabel("Filter events").fill("gate.approval_recorded");
    await expect(
      page
        .getByRole("region", { name: "Trace events" })
        .getByRole("listitem")
        .filter({ hasText: "gate.approval_recorded" }),
    ).toContainText("reviewer@example.com approved (1 of 2)");
  } finally {
    await setApprovals(page, 1); // the demo rule back, for every other spec
  }
});
