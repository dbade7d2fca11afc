import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";
import { openConsoleDatabase, storedDate, writeInOneTransaction } from "./console-db";
import { E2E_API_TOKEN, storageStateFile } from "./fixtures";

// The inbox at size, in a real browser: a queue of thousands is filtered and paged on the server with
// a true total, the selection holds across pages, and a packet decided elsewhere leaves the list on
// its own (the change feed), without the list being downloaded again and again.

test.use({ storageState: storageStateFile("reviewer") });
test.describe.configure({ timeout: 120_000 });

const QUEUE_SIZE = 2_000;

test("a reviewer filters a queue of thousands, pages through it and selects across pages", async ({ page }) => {
  const db = openConsoleDatabase();
  const queue = `bulk-${randomUUID().slice(0, 6)}`;
  const runId = `run_e2e_${queue}`;
  // Packets written straight into the console's database (the engine would take minutes to ask 2,000 times),
  // dates as Prisma writes them. Their run waits for a person; nobody decides these, and the run is deleted
  // (with them) at the end.
  const now = Date.now();
  db.prepare(
    `INSERT INTO "Run" ("id", "agentSlug", "agentVersion", "status", "input", "state", "createdAt", "updatedAt") VALUES (?, 'refund-agent', '1', 'WAITING_APPROVAL', '{}', '{}', ?, ?)`,
  ).run(runId, storedDate(now), storedDate(now));
  try {
    const insert =
      db.prepare(`INSERT INTO "DecisionPacket" ("id", "runId", "step", "kind", "tool", "args", "digest", "status", "requestedBy", "packet", "queue", "createdAt", "changedAt", "capability", "impactRank")
      VALUES (?, ?, ?, 'APPROVAL', 'docs.update', '{}', 'd', 'PENDING', 'agent:refund-agent', ?, ?, ?, ?, 'execute', 2)`);
    writeInOneTransaction(db, () => {
      for (let i = 0; i < QUEUE_SIZE; i++) {
        insert.run(
          `pkt_${queue}_${String(i).padStart(4, "0")}`,
          runId,
          i,
          JSON.stringify({ impact: `update doc ${i}`, evidence: [], options: ["approve", "reject"] }),
          queue,
          storedDate(now - i * 1000),
          storedDate(now),
        );
      }
    });
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
    db.pragma("foreign_keys = ON");
    db.prepare(`DELETE FROM "Run" WHERE "id" = ?`).run(runId);
    db.close();
  }
});

test("a packet decided in another tab leaves the list on its own, through the change feed's stream", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  const { packet } = await api.startRefundAwaitingApproval(24_000);
  // Earlier specs leave packets pending: a queue of its own puts this one on the first page.
  const queue = `feed-${randomUUID().slice(0, 6)}`;
  const db = openConsoleDatabase();
  db.prepare(`UPDATE "DecisionPacket" SET "queue" = ? WHERE "id" = ?`).run(queue, packet.id);
  db.close();

  // The feed streams (GET /api/console/packets/stream): the page is live once its stream is open.
  const streamOpened = page.waitForResponse(
    (r) => r.url().includes("/api/console/packets/stream") && r.status() === 200,
  );
  await page.goto(`/inbox?queue=${queue}`);
  const checkbox = page.getByRole("checkbox", { name: `Select ${packet.tool} packet ${packet.id}` });
  await expect(checkbox).toBeVisible();
  await streamOpened;

  const decided = await request.post(`/api/packets/${packet.id}/decision`, {
    headers: { authorization: `Bearer ${E2E_API_TOKEN}` },
    data: { decision: "reject", reason: "Decided in another tab." },
  });
  expect(decided.ok(), await decided.text()).toBe(true);
  // The decision is told to the stream as it commits; 2 s leaves room for two shared cores under a full e2e run.
  await expect(checkbox).toBeHidden({ timeout: 2_000 });
  await expect(page.getByText("Nothing to decide").or(page.getByText("No packet matches these filters"))).toBeVisible();
});
