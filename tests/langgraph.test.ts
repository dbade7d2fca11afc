import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readEditedArgs } from "../lib/langgraph/edited-args";
import { interruptConfigOf } from "../lib/langgraph/human-interrupt";
import { answersOf } from "../lib/langgraph/resume";
import { threadStatusOf } from "../lib/langgraph/thread-status";
import { isAppError } from "../lib/runtime/errors";

// The LangGraph adapter's pure parts: the thread status of a run, what an interrupt offers, how a resume
// reads in its three shapes, and how the Agent Inbox's string-typed edits are read against a tool's schema.

describe("threadStatusOf", () => {
  it("interrupted whenever an approval is pending; else busy, idle or error by the run's status", () => {
    expect(threadStatusOf("WAITING_APPROVAL", true)).toBe("interrupted");
    expect(threadStatusOf("WAITING_APPROVAL", false)).toBe("busy"); // decided, waiting for a worker
    for (const status of ["QUEUED", "RUNNING", "WAITING_EVENT", "SLEEPING"] as const)
      expect(threadStatusOf(status, false)).toBe("busy");
    expect(threadStatusOf("COMPLETED", false)).toBe("idle");
    for (const status of ["FAILED", "CANCELLED", "NEEDS_ATTENTION"] as const)
      expect(threadStatusOf(status, false)).toBe("error");
  });
});

describe("interruptConfigOf", () => {
  it("follows the packet's options; edit is never offered when several people must approve", () => {
    expect(
      interruptConfigOf({
        content: { options: ["approve", "edit", "reject", "redirect"] } as never,
        requiredApprovals: 1,
      }),
    ).toEqual({ allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true });
    expect(
      interruptConfigOf({
        content: { options: ["approve", "edit", "reject", "redirect"] } as never,
        requiredApprovals: 2,
      }),
    ).toMatchObject({ allow_edit: false, allow_accept: true });
    expect(interruptConfigOf({ content: { options: ["approve", "reject"] } as never, requiredApprovals: 1 })).toEqual({
      allow_accept: true,
      allow_edit: false,
      allow_respond: true,
      allow_ignore: false,
    });
  });
});

describe("answersOf", () => {
  const refused = (resume: unknown) => {
    try {
      answersOf(resume);
    } catch (error) {
      expect(isAppError(error, "INVALID_INPUT")).toBe(true);
      return (error as { fieldErrors?: Record<string, string[]> }).fieldErrors ?? {};
    }
    throw new Error(`accepted ${JSON.stringify(resume)}`);
  };

  it("reads the Agent Inbox's [HumanResponse]", () => {
    expect(answersOf([{ type: "accept", args: { action: "x", args: { a: "1" } } }])).toEqual([{ kind: "accept" }]);
    expect(answersOf([{ type: "edit", args: { action: "t", args: { a: "1" } } }])).toEqual([
      { kind: "edit", editedAction: "t", editedArgs: { a: "1" } },
    ]);
    expect(answersOf([{ type: "edit", args: { action: "t", arguments: { a: 2 } } }])).toEqual([
      { kind: "edit", editedAction: "t", editedArgs: { a: 2 } },
    ]);
    expect(answersOf([{ type: "response", args: "no" }])).toEqual([{ kind: "respond", text: "no" }]);
    expect(answersOf([{ type: "ignore", args: null }])).toEqual([{ kind: "ignore" }]);
  });

  it("reads the HITL middleware's {decisions}, with edited_action or the Agent Inbox's args", () => {
    expect(answersOf({ decisions: [{ type: "approve" }] })).toEqual([{ kind: "accept" }]);
    expect(answersOf({ decisions: [{ type: "edit", edited_action: { name: "t", args: { a: 1 } } }] })).toEqual([
      { kind: "edit", editedAction: "t", editedArgs: { a: 1 } },
    ]);
    expect(answersOf({ decisions: [{ type: "edit", args: { action: "t", args: { a: "1" } } }] })).toEqual([
      { kind: "edit", editedAction: "t", editedArgs: { a: "1" } },
    ]);
    expect(answersOf({ decisions: [{ type: "reject", message: "why" }] })).toEqual([{ kind: "respond", text: "why" }]);
    expect(answersOf({ decisions: [{ type: "reject", args: "from args" }] })).toEqual([
      { kind: "respond", text: "from args" },
    ]);
  });

  it("reads a map keyed by interrupt id", () => {
    expect(
      answersOf({
        pkt_1: { type: "accept" },
        pkt_2: [{ type: "response", args: "no" }],
        pkt_3: { decisions: [{ type: "ignore" }] },
      }),
    ).toEqual([
      { packetId: "pkt_1", kind: "accept" },
      { packetId: "pkt_2", kind: "respond", text: "no" },
      { packetId: "pkt_3", kind: "ignore" },
    ]);
  });

  it("refuses what is none of them, naming the field", () => {
    expect(refused([])).toHaveProperty("command.resume");
    expect(refused({})).toHaveProperty("command.resume");
    expect(refused("accept")).toHaveProperty("command.resume");
    expect(refused([{ type: "approve" }])).toHaveProperty("command.resume.0.type");
    expect(refused([{ type: "edit", args: "x" }])).toHaveProperty("command.resume.0.args");
    expect(refused({ decisions: [] })).toHaveProperty("command.resume.decisions");
    expect(refused({ pkt_1: { decisions: [{ type: "approve" }, { type: "approve" }] } })).toHaveProperty(
      "command.resume.pkt_1",
    );
  });
});

describe("readEditedArgs", () => {
  const tool = {
    input: z.object({
      id: z.string(),
      cents: z.number().int(),
      on: z.boolean(),
      tags: z.array(z.string()),
      note: z.string().nullable(),
      mode: z.enum(["a", "b"]),
      any: z.unknown(),
    }),
  };

  it("JSON-decodes strings where the schema does not take a string, and keeps them where it does", () => {
    expect(
      readEditedArgs(tool, {
        id: "007",
        cents: "1500",
        on: "true",
        tags: '["x"]',
        note: "null",
        mode: "a",
        any: "5",
        extra: "9",
      }),
    ).toEqual({ id: "007", cents: 1500, on: true, tags: ["x"], note: "null", mode: "a", any: "5", extra: "9" });
  });

  it("leaves a string that does not decode as it is, for the tool's schema to refuse", () => {
    expect(readEditedArgs(tool, { cents: "lots", on: false })).toEqual({ cents: "lots", on: false });
    expect(tool.input.safeParse({ ...readEditedArgs(tool, { cents: "lots" }) }).success).toBe(false);
  });
});
