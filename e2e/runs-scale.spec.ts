import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { initialState } from "../lib/runtime/state";
import type Database from "better-sqlite3";
import { openConsoleDatabase, storedDate, writeInOneTransaction } from "./console-db";

// The run page at size, in a real browser: a finished run of 5,000 trace events and 500 checkpoints opens
// with one page of its trace (the first events at once), scrolls to its last event as the timeline reads
// the rest page by page, and lists its newest checkpoints with older ones a page at a time.

test.describe.configure({ timeout: 120_000 });

const EVENTS = 5_000;
const CHECKPOINTS = 500;
const EVENT_TYPES = ["model.decision", "permission.checked", "tool.call", "run.status"] as const;

const count = (n: number) => n.toLocaleString("en-US");

/**
 * The run, written straight into the console's database: the engine would take minutes to take 500 steps.
 */
function insertLongRun(db: Database.Database, runId: string) {
  const state = JSON.stringify(
    initialState({
      agent: { slug: "refund-agent", version: "1", instructionsHash: "0".repeat(64) },
      instructions: "Refund the order if it qualifies.",
      input: null,
    }),
  );
  const start = Date.now() - EVENTS * 1000;
  const insertEvent = db.prepare(
    `INSERT INTO "TraceEvent" ("runId", "seq", "step", "type", "data", "at") VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertCheckpoint = db.prepare(
    `INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt") VALUES (?, ?, ?, ?, 0, ?)`,
  );
  writeInOneTransaction(db, () => {
    db.prepare(
      `INSERT INTO "Run" ("id", "agentSlug", "agentVersion", "status", "input", "state", "stateSeq", "eventSeq", "createdAt", "updatedAt") VALUES (?, 'refund-agent', '1', 'COMPLETED', '{}', ?, ?, ?, ?, ?)`,
    ).run(runId, state, CHECKPOINTS, EVENTS, storedDate(start), storedDate(start + EVENTS * 1000));
    for (let seq = 1; seq <= EVENTS; seq++) {
      const type = EVENT_TYPES[seq % EVENT_TYPES.length];
      const data =
        type === "tool.call"
          ? { tool: "orders.get", attempt: 1, latencyMs: 12 }
          : type === "model.decision"
            ? { decision: { kind: "call", tool: "orders.get" } }
            : { tool: "orders.get", effect: "allow" };
      insertEvent.run(
        runId,
        seq,
        Math.floor((seq - 1) / 10),
        type,
        JSON.stringify({ ...data, note: `event ${seq}` }),
        storedDate(start + seq * 1000),
      );
    }
    for (let seq = 1; seq <= CHECKPOINTS; seq++)
      insertCheckpoint.run(runId, seq, seq - 1, state, storedDate(start + seq * 10_000));
  });
}

test("the run page of a 5,000-event run scrolls to its end", async ({ page }) => {
  const db = openConsoleDatabase();
  const runId = `run_e2e_scale_${randomUUID().slice(0, 8)}`;
  insertLongRun(db, runId);
  try {
    // The first events are in the server's HTML, so no script has to run before they show.
    const response = await page.goto(`/runs/${runId}`, { waitUntil: "commit" });
    // The first events come with the page itself, and only one page of them: not the whole trace. The page
    // streams ("Loading the run…" first); its whole HTML is the event to wait for, however long a loaded
    // machine takes to render it (a fixed 5 s wait for the first row failed under two suites at once).
    const html = await response!.text();
    expect(html).toContain("event 200");
    expect(html).not.toContain("event 201");
    // Then the browser's rendering of it: on a machine running two suites at once (load 12) the first row was
    // not drawn 5 s after the HTML had arrived. Parsed, the document holds it.
    await page.waitForLoadState("domcontentloaded");
    const trace = page.getByRole("region", { name: "Trace events" });
    await expect(trace.getByText("#1", { exact: true })).toBeVisible();
    await expect(page.getByText(`Showing 200 of 200 events (${count(EVENTS)} in the run`)).toBeVisible();
    // Only the rows in view are in the document.
    expect(await trace.getByRole("listitem").count()).toBeLessThan(60);
    // The filter counts are the whole trace's, not the page's.
    await expect(page.getByRole("checkbox", { name: `Tool calls (${EVENTS / EVENT_TYPES.length})` })).toBeVisible();

    // Each scroll to the bottom reads the next page of events, until the run's last one. (Scrolled again
    // until the page grows: a scroll before the page has hydrated is not seen.)
    const status = page.getByText(/^Showing [\d,]+ of [\d,]+ events/);
    const heldEvents = async () =>
      Number((await status.textContent())?.match(/of ([\d,]+) events/)?.[1].replaceAll(",", ""));
    for (let held = 200; held < EVENTS; held = await heldEvents()) {
      await expect(async () => {
        await trace.evaluate((list) => list.scrollTo({ top: list.scrollHeight }));
        expect(await heldEvents()).toBeGreaterThan(held);
      }).toPass({ timeout: 30_000 });
    }
    await trace.evaluate((list) => list.scrollTo({ top: list.scrollHeight }));
    await expect(trace.getByText(`#${EVENTS}`, { exact: true })).toBeVisible();
    await expect(page.getByText(`Showing ${count(EVENTS)} of ${count(EVENTS)} events`)).toHaveText(/events$/); // nothing more to load
    expect(await trace.getByRole("listitem").count()).toBeLessThan(60);

    // Checkpoints: the newest page, then the next one down on request.
    const checkpoints = page
      .locator("section")
      .filter({ has: page.getByRole("heading", { name: "Checkpoints", exact: true }) });
    await expect(checkpoints.getByRole("link", { name: /^#500 · step 499/ })).toBeVisible();
    await expect(checkpoints.getByRole("link", { name: /^#\d+ · step/ })).toHaveCount(50);
    await checkpoints.getByRole("button", { name: "Show older checkpoints" }).click();
    await expect(checkpoints.getByRole("link", { name: /^#401 · step 400/ })).toBeVisible();
    await expect(checkpoints.getByRole("link", { name: /^#\d+ · step/ })).toHaveCount(100);
  } finally {
    db.pragma("foreign_keys = ON"); // the run's events and checkpoints go with it
    db.prepare(`DELETE FROM "Run" WHERE "id" = ?`).run(runId);
    db.close();
  }
});
