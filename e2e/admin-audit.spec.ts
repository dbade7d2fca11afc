import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";
import { E2E_API_TOKEN, storageStateFile } from "./fixtures";

// The admin's audit log page: a token's action (a cancel through the HTTP API) is listed with who and
// through what; filtering by its object leaves only it; the download link exports what the filter holds.
// And the A2A agent card, which the proxy serves without a session.

test.describe("the audit log page", () => {
  test.use({ storageState: storageStateFile("admin") });
  test.describe.configure({ timeout: 90_000 });

  test("an admin filters the audit log by object and downloads the filtered export", async ({ page, request }) => {
    const api = tetherApi(request);
    const { orderId } = await api.createOrder({ amountCents: 24_000 });
    const { id: runId } = await api.startRun("refund-agent", { orderId, reason: "Audit e2e." });
    const cancelled = await request.post(`/api/runs/${runId}/cancel`, {
      headers: { authorization: `Bearer ${E2E_API_TOKEN}` },
      data: { reason: "audit e2e" },
    });
    expect(cancelled.status()).toBe(200);

    await page.goto("/admin/audit");
    await expect(page).toHaveTitle("Audit log · Tether");
    await expect(page.getByRole("heading", { name: "Audit log", level: 1 })).toBeVisible();

    const form = page.getByRole("search", { name: "Filter the audit log" });
    await form.getByLabel("Object").fill(runId);
    await form.getByLabel("Action").fill("runs.");
    await form.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(new RegExp(`target=${runId}`));

    const rows = page.getByRole("table").getByRole("row");
    await expect(rows).toHaveCount(2); // the header and the cancel
    const row = rows.nth(1);
    await expect(row).toContainText("runs.cancel");
    await expect(row).toContainText(runId);
    await expect(row).toContainText("via token:");
    await expect(form.getByLabel("Object")).toHaveValue(runId);

    const link = page.getByRole("link", { name: "Download CSV" });
    await expect(link).toHaveAttribute("href", new RegExp(`^/api/console/audit\\?.*target=${runId}.*format=csv`));
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe("audit-log.csv");
    const csv = await readFile((await download.path())!, "utf8");
    const lines = csv.split("\r\n").filter(Boolean);
    expect(lines[0]).toBe("id,at,actor,via,action,target,before,after,data");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`runs.cancel,${runId}`);
    expect(lines[1]).toContain("audit e2e");

    // The download is itself audited, as the signed-in admin.
    await page.goto(`/admin/audit?action=audit.export&actor=${encodeURIComponent("admin@example.com")}`);
    await expect(page.getByRole("table").getByRole("row").nth(1)).toContainText("audit.export");
  });
});

test.describe("the A2A agent card", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("is served without a session at /.well-known/agent-card.json", async ({ request }) => {
    const response = await request.get("/.well-known/agent-card.json", { maxRedirects: 0 });
    expect(response.status()).toBe(200);
    const card = await response.json();
    expect(card).toMatchObject({
      name: "Tether",
      supportedInterfaces: [
        { protocolBinding: "JSONRPC", protocolVersion: "1.0", url: expect.stringMatching(/\/api\/a2a$/) },
      ],
    });
    expect(card.skills.map((s: { id: string }) => s.id)).toContain("refund-agent");
    // Everything else still needs a session.
    const page = await request.get("/admin/audit", { maxRedirects: 0 });
    expect([302, 303, 307]).toContain(page.status());
    expect(page.headers().location).toContain("/signin");
  });
});
