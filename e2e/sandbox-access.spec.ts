import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";
import { E2E_API_TOKEN, storageStateFile } from "./fixtures";

// The sandbox world on the real server (docs/security.md): it is the demo's, so every request needs an admin's
// API token, an admin's console session or the internal key the built-in tools send (the demo's runs,
// which the embedded worker drives through it, prove that one). Webhooks without configured secrets
// have no source at all. Unit-level cases: tests/sandbox-access.int.test.ts, tests/webhooks.int.test.ts.

test.describe("without a credential", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("every sandbox route is a 401, unknown paths included; a webhook for an unconfigured source is a 404", async ({
    request,
  }) => {
    for (const [method, url] of [
      ["GET", "/api/sandbox/ledger"],
      ["POST", "/api/sandbox/reset"],
      ["PUT", "/api/sandbox/faults/payments"],
      ["GET", "/api/sandbox/no/such/route"],
    ] as const) {
      const response = await request.fetch(url, { method, data: method === "GET" ? undefined : {} });
      expect(response.status(), `${method} ${url}`).toBe(401);
      expect((await response.json()).error.code).toBe("unauthorized");
    }
    expect(
      (await request.get("/api/sandbox/ledger", { headers: { "x-tether-sandbox-key": "guessed" } })).status(),
    ).toBe(401);
    const webhook = await request.post("/api/webhooks/deploys", {
      data: { runId: "run_x", type: "deploy.finished" },
      headers: { "webhook-id": "msg_1", "webhook-timestamp": "1", "webhook-signature": "v1,x" },
    });
    expect(webhook.status()).toBe(404);
  });
});

test.describe("as an operator", () => {
  test.use({ storageState: storageStateFile("operator") });

  test("the session of someone who is not an admin is a 403; an admin's token opens it", async ({ request }) => {
    const refused = await request.put("/api/sandbox/faults/payments", { data: { latencyMs: 0 } });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe("forbidden");
    expect(
      (await request.get("/api/sandbox/ledger", { headers: { authorization: `Bearer ${E2E_API_TOKEN}` } })).status(),
    ).toBe(200);
  });
});

test.describe("as an admin", () => {
  test.use({ storageState: storageStateFile("admin") });

  test("an admin's session opens it, unless another site sent the request", async ({ request }) => {
    expect((await request.get("/api/sandbox/ledger?system=payments")).status()).toBe(200);
    expect((await request.get("/api/sandbox/ledger", { headers: { "sec-fetch-site": "cross-site" } })).status()).toBe(
      401,
    );
  });

  test("the built-in tools reach it with the internal key: a refund run completes with one payment", async ({
    request,
  }) => {
    const api = tetherApi(request);
    const { orderId } = await api.createOrder({ amountCents: 3_000 }); // under the approval limit: no gate
    const { id: runId } = await api.startRun("refund-agent", { orderId, reason: "Arrived broken." });
    await api.waitForStatus(runId, ["COMPLETED"], 60_000);
    expect(await api.ledger(runId, "payments")).toHaveLength(1);
  });
});
