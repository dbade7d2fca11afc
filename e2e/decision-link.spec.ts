import { expect, test } from "@playwright/test";
import { decisionLinkKey, linkToken, newLinkId } from "../lib/decision-links/token";
import { loadConfig } from "../lib/config";
import { tetherApi } from "./api";
import { openConsoleDatabase, storedDate } from "./console-db";
import { demoEmail, E2E_DATA_DIR } from "./fixtures";

// Approving from anywhere: a reviewer who is not signed in opens their decision link (as from an email),
// sees the packet, confirms, and the inbox then shows the packet decided by them. A bad link shows nothing.
// The link is issued as the notifications issue it — a DecisionLink row and its signed token, with the
// server's key (its secret sits in the e2e data directory) — written straight into the console's database.

function issueLink(packetId: string, email: string): string {
  const db = openConsoleDatabase();
  try {
    const { digest } = db.prepare(`SELECT "digest" FROM "DecisionPacket" WHERE "id" = ?`).get(packetId) as {
      digest: string;
    };
    const { id: userId } = db.prepare(`SELECT "id" FROM "User" WHERE "email" = ?`).get(email) as { id: string };
    const link = { id: newLinkId(), packetId, userId, digest, expiresAt: new Date(Date.now() + 3_600_000) };
    db.prepare(
      `INSERT INTO "DecisionLink" ("id", "packetId", "userId", "digest", "expiresAt", "createdAt") VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(link.id, packetId, userId, digest, storedDate(link.expiresAt), storedDate(new Date()));
    return linkToken(decisionLinkKey(loadConfig({ TETHER_DATA_DIR: E2E_DATA_DIR })), link);
  } finally {
    db.close();
  }
}

test("a signed-out reviewer opens a decision link, confirms, and the inbox shows the packet decided by them", async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const api = tetherApi(request);
  const { runId, packet } = await api.startRefundAwaitingApproval();
  const token = issueLink(packet.id, demoEmail("reviewer"));

  const signedOut = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  try {
    const phone = await signedOut.newPage();
    await phone.goto(`/d/${token}?choice=approve`);
    await expect(phone).toHaveURL(new RegExp(`/d/${token}`)); // not sent to sign in
    await expect(phone.getByRole("heading", { level: 1 })).toContainText("Decide as");
    await expect(phone.getByText("payments.refund")).toBeVisible();
    await expect(phone.getByText(/Asked by agent:refund-agent/)).toBeVisible();
    await expect(phone.getByRole("textbox", { name: /Reason/ })).toBeVisible(); // reject takes its reason here
    expect((await api.getRun(runId)).status).toBe("WAITING_APPROVAL"); // opening decided nothing

    await phone.getByRole("button", { name: "Approve" }).click();
    await expect(phone.getByText("Decided: approved")).toBeVisible();
    await expect(phone.getByText(`Decided by ${demoEmail("reviewer")}`)).toBeVisible();

    // The same link again: used, no form.
    await phone.goto(`/d/${token}`);
    await expect(phone.getByText("This link has been used.")).toBeVisible();
    await expect(phone.getByRole("button", { name: "Approve" })).toHaveCount(0);

    // A tampered link shows nothing of the packet.
    await phone.goto(`/d/${token.slice(0, -3)}AAA`);
    await expect(phone.getByText("This link is not valid")).toBeVisible();
    await expect(phone.getByText("payments.refund")).toHaveCount(0);
  } finally {
    await signedOut.close();
  }

  await page.goto(`/inbox/${packet.id}`);
  await expect(
    page.getByText(`This packet is approved (${demoEmail("reviewer")}): there is nothing left to decide.`),
  ).toBeVisible();
  await api.waitForStatus(runId, ["COMPLETED"]);
});
