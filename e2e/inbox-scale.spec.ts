import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { createDb } from "../lib/db";
import { tetherApi } from "./api";
import { E2E_API_TOKEN, e2eDatabaseUrl, storageStateFile } from "./fixtures";

// The inbox at size, in a real browser: a queue of thousands is filtered and paged on the server with
// a true total, the selection holds across pages, and a packet decided elsewhere leaves the list on
// its own (the change feed), without the list being downloaded again and again.

test.use({ storageState: storageStateFile("reviewer") });
test.describe.configure({ timeout: 120_000 });

const QUEUE_SIZE = 2_000;

test("a reviewer filters a queue of thousands, pages through it and selects across pages", async ({ page }) => {
  const db = createDb(e2eDatabaseUrl());
  const queue = `bulk-${randomUUID().slice(0, 6)}`;
  const runId = `run_e2e_${queue}`;
  // Packets written straight into the console's database (the engine would take minutes to ask 2,000 times).
  // Their run waits for a person; nobody decides these, and the run is deleted (with them) at the end.
  await db.run.create({ data: { id: runId, agentSlug: "refund-agent", agentVersion: "1", status: "WAITING_APPROVAL", input: "{}", state: "{}" } });
  try {
    const at = Date.now();
    for (let from = 0; from < QUEUE_SIZE; from += 500) {
      await db.decisionPacket.createMany({
        data: Array.from({ length: 500 }, (_, i) => ({
          id: `pkt_${queue}_${String(from + i).padStart(4, "0")}`, runId, step: from + i, kind: "APPROVAL", tool: "docs.update", args: "{}", digest: "d", status: "PENDING",
          requestedBy: "agent:refund-agent", packet: JSON.stringify({ impact: `update doc ${from + i}`, evidence: [], options: ["approve", "reject"] }), queue,
          createdAt: new Date(at - (from + i) * 1000), changedAt: new Date(at), capability: "execute", impactRank: 2,
        })),
      });
    }
    await page.goto(`/inbox?queue=${queue}&sort=age`);
    const list = page.getByRole("list", { name: "Pending packets" });
    await expect(page.getByText(`50 of ${QUEUE_SIZE} matching packets shown`)).toBeVisible();
    await expect(list.getByRole("listitem")).toHaveCount(50);
    // Oldest first: the packet created last in time order (index 1999) leads.
    await expect(list.getByRole("listitem").first()).toContainText("update doc 1999");

    await page.getByRole("checkbox", { name: `Select docs.update packet pkt_${queue}_1999` }).check();
    await page.getByRole("button", { name: `Load more (${QUEUE_SIZE - 50} more)` }).click();
    await expect(page.getByText(`100 of ${QUEUE_SIZE} matching packets shown`)).toBeVisible();
    await expect(list.getByRole("listitem").nth(99)).toContainText("update doc 1900");
    await page.getByRole("checkbox", { name: `Select docs.update packet pkt_${queue}_1900` }).check();
    await expect(page.getByRole("region", { name: "Bulk decision" })).toContainText("2 selected");

    // The keyboard walks past the loaded packets: j on the last one loads the next page.
    await list.getByRole("listitem").nth(99).getByRole("article").click();
    await page.keyboard.press("j");
    await expect(page.getByText(`150 of ${QUEUE_SIZE} matching packets shown`)).toBeVisible();
  } finally {
    await db.run.delete({ where: { id: runId } });
    await db.$disconnect();
  }
});

test("a packet decided in another tab leaves the list on its own", async ({ page, request }) => {
  const api = tetherApi(request);
  const { packet } = await api.startRefundAwaitingApproval(24_000);
  await page.goto("/inbox?sort=age");
  const row = page.getByRole("article").filter({ hasText: packet.id });
  await expect(page.getByRole("checkbox", { name: `Select ${packet.tool} packet ${packet.id}` })).toBeVisible();

  let feedPolls = 0;
  page.on("response", (response) => {
    if (response.url().includes("/api/console/packets/changes")) feedPolls++;
  });
  const decided = await request.post(`/api/packets/${packet.id}/decision`, { headers: { authorization: `Bearer ${E2E_API_TOKEN}` }, data: { decision: "reject", reason: "Decided in another tab." } });
  expect(decided.ok(), await decided.text()).toBe(true);
  // The feed is polled every 0.5 s; 2 s leaves room for two shared cores under a full e2e run.
  await expect(page.getByRole("checkbox", { name: `Select ${packet.tool} packet ${packet.id}` })).toBeHidden({ timeout: 2_000 });
  await expect(row).toHaveCount(0);
  expect(feedPolls).toBeGreaterThan(0);
});
