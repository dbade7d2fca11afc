import { expect, test, type Page } from "@playwright/test";
import { tetherApi } from "./api";
import { E2E_API_TOKEN } from "./fixtures";

// The run page over Server-Sent Events: an operator opens a run waiting at its gate; the page's live stream
// opens (the status says so); the packet is decided elsewhere (the API) and the decision, then what the run
// does next, arrive on the open page — no reload, and no poll of the trace while the stream is open.

const trace = (page: Page) => page.getByRole("region", { name: "Trace events" });
const isRunStream = (url: string, runId: string) => new URL(url).pathname === `/api/console/runs/${runId}/stream`;

test("a running run's page shows a new event as it commits, over the live stream", async ({ page, request }) => {
  test.setTimeout(60_000);
  const api = tetherApi(request);
  const { runId, packet } = await api.startRefundAwaitingApproval();

  const streamOpened = page.waitForResponse((r) => isRunStream(r.url(), runId) && r.status() === 200);
  await page.goto(`/runs/${runId}`);
  const response = await streamOpened;
  expect(response.headers()["content-type"]).toMatch(/^text\/event-stream/);
  await expect(page.getByTestId("run-status")).toContainText("Waiting approval");
  await expect(page.getByTestId("run-status").locator('[data-live="stream"]')).toBeVisible();
  await expect(trace(page).getByText("gate.requested", { exact: true })).toBeVisible();
  await expect(trace(page).getByRole("listitem").filter({ hasText: "gate.decided" })).toHaveCount(0);
  const loaded = page.url();

  // From here on the trace is not polled: what arrives comes over the stream.
  const polls: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === `/api/console/runs/${runId}/events`) polls.push(r.url());
  });

  const decided = await request.post(`/api/packets/${packet.id}/decision`, {
    headers: { authorization: `Bearer ${E2E_API_TOKEN}` },
    data: { decision: "reject", reason: "Decided elsewhere, seen live." },
  });
  expect(decided.ok(), await decided.text()).toBe(true);

  const decision = trace(page).getByRole("listitem").filter({ hasText: "gate.decided" });
  await expect(decision).toBeVisible({ timeout: 10_000 });
  await expect(decision).toContainText("Human decision");
  await expect(page.getByTestId("run-status")).not.toContainText("Waiting approval", { timeout: 10_000 });
  expect(page.url()).toBe(loaded); // no navigation, no reload
  expect(polls).toEqual([]);
});

test("without EventSource the page falls back to polling the trace", async ({ page, request }) => {
  test.setTimeout(60_000);
  const api = tetherApi(request);
  const { runId, packet } = await api.startRefundAwaitingApproval();
  await page.addInitScript(() => {
    Reflect.deleteProperty(window, "EventSource");
  });
  const streams: string[] = [];
  page.on("request", (r) => {
    if (isRunStream(r.url(), runId)) streams.push(r.url());
  });
  const polled = page.waitForRequest((r) => new URL(r.url()).pathname === `/api/console/runs/${runId}/events`);

  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-status").locator('[data-live="poll"]')).toBeVisible();
  await polled;
  const decided = await request.post(`/api/packets/${packet.id}/decision`, {
    headers: { authorization: `Bearer ${E2E_API_TOKEN}` },
    data: { decision: "reject", reason: "Decided elsewhere, polled." },
  });
  expect(decided.ok(), await decided.text()).toBe(true);
  await expect(trace(page).getByRole("listitem").filter({ hasText: "gate.decided" })).toBeVisible({ timeout: 10_000 });
  expect(streams).toEqual([]);
});
