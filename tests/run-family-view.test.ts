import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PacketSummary } from "@/components/inbox/packet-summary";
import { RunFamilyLinks } from "@/components/runs/run-family";
import type { DecisionPacket } from "@/lib/runtime/types";

// The console's parent ↔ child links, rendered as the server renders them (the data: tests/children.int.test.ts).

describe("run family links", () => {
  it("a child links its parent (agent, step); a parent lists its children; a lone run shows nothing", () => {
    const child = renderToStaticMarkup(
      createElement(RunFamilyLinks, {
        family: {
          parent: { id: "run_p", agentSlug: "writer", status: "WAITING_EVENT", spawnedAtStep: 2 },
          children: [],
        },
      }),
    );
    expect(child).toContain("Child run of");
    expect(child).toContain('href="/runs/run_p"');
    expect(child).toContain("(writer, step 2)");
    const parent = renderToStaticMarkup(
      createElement(RunFamilyLinks, {
        family: {
          parent: null,
          children: [
            { id: "run_c1", agentSlug: "reviewer", status: "COMPLETED", spawnedAtStep: 0 },
            { id: "run_c2", agentSlug: "reviewer", status: "RUNNING", spawnedAtStep: 4 },
          ],
        },
      }),
    );
    expect(parent).toContain("Child runs");
    expect(parent).toContain('href="/runs/run_c1"');
    expect(parent).toContain('href="/runs/run_c2"');
    expect(renderToStaticMarkup(createElement(RunFamilyLinks, { family: { parent: null, children: [] } }))).toBe("");
  });

  it("a child's packet names the parent run that started it", () => {
    const packet = {
      id: "pkt_1",
      workspaceId: "default",
      runId: "run_c",
      step: 0,
      kind: "APPROVAL",
      tool: "notes.write",
      args: {},
      digest: "d",
      status: "PENDING",
      requestedBy: "reviewer",
      content: { impact: "writes a note", evidence: [], options: ["approve", "reject"] },
      queue: "default",
      assignee: null,
      requiredApprovals: 1,
      approvers: [],
      onExpire: "reject",
      expiresAt: null,
      decision: null,
      decidedBy: null,
      decidedAt: null,
      usedAt: null,
      version: 1,
      createdAt: new Date(0),
    } satisfies DecisionPacket;
    const html = renderToStaticMarkup(
      createElement(PacketSummary, {
        packet,
        now: new Date(0),
        run: {
          status: "WAITING_APPROVAL",
          agent: "reviewer",
          parent: { id: "run_p", agentSlug: "writer", status: "WAITING_EVENT", spawnedAtStep: 1 },
        },
      }),
    );
    expect(html).toContain("started by writer at step 1 in run");
    expect(html).toContain('href="/runs/run_p"');
    const lone = renderToStaticMarkup(
      createElement(PacketSummary, {
        packet,
        now: new Date(0),
        run: { status: "WAITING_APPROVAL", agent: "reviewer", parent: null },
      }),
    );
    expect(lone).not.toContain("child run");
  });
});
