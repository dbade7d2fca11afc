import { describe, expect, it } from "vitest";
import { diffArgs } from "../lib/inbox/diff";
import { describeDecisionError } from "../lib/inbox/decision-errors";
import { impactLevel } from "../lib/runtime/impact";
import { canDecideTogether, inboxFiltersToParams, parseInboxFilters, type InboxItem } from "../lib/inbox/queue";
import { filterInbox, inboxFacets, sortInbox, urgencyScore } from "./support/inbox-oracle";
import { isTypingTarget, shortcutKey } from "../lib/inbox/shortcuts";

const NOW = new Date("2026-12-02T12:00:00Z");
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();
const inMinutes = (m: number) => new Date(NOW.getTime() + m * 60_000).toISOString();

function buildItem(overrides: Partial<InboxItem> = {}): InboxItem {
  return {
    id: `pkt_${Math.random().toString(36).slice(2, 8)}`,
    runId: "run_1",
    step: 3,
    kind: "APPROVAL",
    tool: "docs.search",
    impact: "does a thing",
    args: {},
    digest: "d",
    agent: "refund-agent",
    capability: "read",
    semantics: "pure-read",
    impactLevel: "low",
    queue: "default",
    assignee: null,
    requiredApprovals: 1,
    approvers: [],
    createdAt: minutesAgo(10),
    expiresAt: null,
    onExpire: "reject",
    ...overrides,
  };
}

describe("impact rule", () => {
  it("is high for unsafe, money, external communication, unknown outcomes and unknown tools", () => {
    expect(impactLevel("deploys.run_migration", { capability: "execute", semantics: "unsafe" })).toBe("high");
    expect(impactLevel("payments.refund", { capability: "execute", semantics: "idempotent" })).toBe("high");
    expect(impactLevel("mail.send", { capability: "execute", semantics: "reconcilable" })).toBe("high");
    expect(impactLevel("tickets.update", { capability: "execute", semantics: "idempotent" }, "UNKNOWN_OUTCOME")).toBe(
      "high",
    );
    expect(impactLevel("anything", null)).toBe("high");
  });
  it("is medium for other effects and low for reads and drafts", () => {
    expect(impactLevel("tickets.update", { capability: "execute", semantics: "idempotent" })).toBe("medium");
    expect(impactLevel("drafts.create", { capability: "draft", semantics: "idempotent" })).toBe("low");
    expect(impactLevel("orders.get", { capability: "read", semantics: "pure-read" })).toBe("low");
  });
});

describe("sorting the queue", () => {
  const oldLow = buildItem({ id: "old-low", createdAt: minutesAgo(300) });
  const newHigh = buildItem({ id: "new-high", impactLevel: "high", createdAt: minutesAgo(1) });
  const soonMedium = buildItem({
    id: "soon-medium",
    impactLevel: "medium",
    createdAt: minutesAgo(5),
    expiresAt: inMinutes(30),
  });
  const laterHigh = buildItem({
    id: "later-high",
    impactLevel: "high",
    createdAt: minutesAgo(2),
    expiresAt: inMinutes(600),
  });
  const items = [oldLow, newHigh, soonMedium, laterHigh];
  const ids = (sorted: InboxItem[]) => sorted.map((i) => i.id);

  it("by urgency: a deadline within the hour beats impact; then impact, deadline and wait", () => {
    expect(urgencyScore(soonMedium, NOW)).toBe(60);
    expect(urgencyScore(laterHigh, NOW)).toBe(50);
    expect(ids(sortInbox(items, "urgency", NOW))).toEqual(["soon-medium", "later-high", "new-high", "old-low"]);
  });
  it("by impact, expiry and age", () => {
    expect(ids(sortInbox(items, "impact", NOW))).toEqual(["later-high", "new-high", "soon-medium", "old-low"]);
    expect(ids(sortInbox(items, "expiry", NOW))).toEqual(["soon-medium", "later-high", "old-low", "new-high"]);
    expect(ids(sortInbox(items, "age", NOW))).toEqual(["old-low", "soon-medium", "later-high", "new-high"]);
  });
  it("does not change the list it sorts", () => {
    sortInbox(items, "age", NOW);
    expect(ids(items)).toEqual(["old-low", "new-high", "soon-medium", "later-high"]);
  });
});

describe("filters", () => {
  const mine = buildItem({
    id: "mine",
    assignee: "me@x",
    tool: "payments.refund",
    capability: "execute",
    queue: "refunds",
  });
  const theirs = buildItem({
    id: "theirs",
    assignee: "you@x",
    agent: "deploy-agent",
    tool: "deploys.run_migration",
    queue: "operators",
  });
  const free = buildItem({ id: "free" });
  const items = [mine, theirs, free];
  const run = (params: Record<string, string>) =>
    filterInbox(items, parseInboxFilters(params), "me@x").map((i) => i.id);

  it("by agent, tool, capability, queue, assignee, unassigned and assigned to me", () => {
    expect(run({ agent: "deploy-agent" })).toEqual(["theirs"]);
    expect(run({ tool: "payments.refund" })).toEqual(["mine"]);
    expect(run({ capability: "execute" })).toEqual(["mine"]);
    expect(run({ queue: "operators" })).toEqual(["theirs"]);
    expect(run({ assignee: "you@x" })).toEqual(["theirs"]);
    expect(run({ assignee: "unassigned" })).toEqual(["free"]);
    expect(run({ mine: "1" })).toEqual(["mine"]);
    expect(run({})).toEqual(["mine", "theirs", "free"]);
  });
  it("round-trip through search params; junk falls back to defaults", () => {
    const filters = parseInboxFilters(new URLSearchParams("sort=expiry&tool=mail.send&mine=1&bogus=2"));
    expect(filters).toEqual({ sort: "expiry", tool: "mail.send", mine: true });
    expect(inboxFiltersToParams(filters).toString()).toBe("sort=expiry&tool=mail.send&mine=1");
    expect(parseInboxFilters({ sort: "sideways", agent: ["a", "b"] })).toEqual({ sort: "urgency", agent: "a" });
    expect(inboxFiltersToParams(parseInboxFilters({})).toString()).toBe("");
  });
  it("facets list the values present; bulk needs one tool", () => {
    expect(inboxFacets(items)).toMatchObject({
      agents: ["deploy-agent", "refund-agent"],
      assignees: ["me@x", "you@x"],
      queues: ["default", "operators", "refunds"],
    });
    expect(canDecideTogether([mine, buildItem({ tool: "payments.refund" })])).toBe(true);
    expect(canDecideTogether([mine, theirs])).toBe(false);
    expect(canDecideTogether([])).toBe(false);
  });
});

describe("diff against the proposal", () => {
  it("lists changed, added and removed leaves by path", () => {
    expect(
      diffArgs({ a: 1, b: { c: "x", d: [1, 2] }, gone: true }, { a: 2, b: { c: "x", d: [1, 2] }, added: "y" }),
    ).toEqual([
      { path: "a", kind: "changed", before: 1, after: 2 },
      { path: "added", kind: "added", after: "y" },
      { path: "gone", kind: "removed", before: true },
    ]);
  });
  it("is empty for equal arguments, whatever the key order; arrays compare whole", () => {
    expect(diffArgs({ a: 1, b: { x: 1, y: 2 } }, { b: { y: 2, x: 1 }, a: 1 })).toEqual([]);
    expect(diffArgs({ tags: ["a"] }, { tags: ["a", "b"] })).toEqual([
      { path: "tags", kind: "changed", before: ["a"], after: ["a", "b"] },
    ]);
    expect(diffArgs(1, 2)).toEqual([{ path: "(arguments)", kind: "changed", before: 1, after: 2 }]);
  });
});

describe("decision errors and shortcuts", () => {
  it("a lost race, an expiry and stale evidence read differently", () => {
    const kinds = ["PACKET_ALREADY_DECIDED", "CONFLICT", "PACKET_EXPIRED", "PACKET_STALE", "FORBIDDEN", "INTERNAL"].map(
      (c) => describeDecisionError(c, "m").kind,
    );
    expect(kinds).toEqual(["race", "race", "expired", "stale", "forbidden", "other"]);
    expect(
      new Set(
        ["PACKET_ALREADY_DECIDED", "PACKET_EXPIRED", "PACKET_STALE"].map((c) => describeDecisionError(c, "m").title),
      ).size,
    ).toBe(3);
  });
  it("never fire while typing, with a modifier, or under a dialog", () => {
    const key = (
      k: string,
      target: object | null = { tagName: "BODY" },
      mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {},
    ) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, defaultPrevented: false, target, ...mods });
    expect(shortcutKey(key("J"), false)).toBe("j");
    expect(shortcutKey(key("Enter"), false)).toBe("Enter");
    expect(shortcutKey(key("a", { tagName: "INPUT", type: "text" }), false)).toBeNull();
    expect(shortcutKey(key("a", { tagName: "TEXTAREA" }), false)).toBeNull();
    expect(shortcutKey(key("a", { tagName: "DIV", isContentEditable: true }), false)).toBeNull();
    expect(shortcutKey(key("a", { tagName: "INPUT", type: "checkbox" }), false)).toBe("a");
    expect(shortcutKey(key("a", undefined, { ctrlKey: true }), false)).toBeNull();
    expect(shortcutKey(key("a"), true)).toBeNull();
    expect(shortcutKey(key("ArrowDown"), false)).toBeNull();
    expect(isTypingTarget(null)).toBe(false);
  });
});
