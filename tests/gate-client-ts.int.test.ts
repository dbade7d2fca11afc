import { randomUUID } from "node:crypto";
import { asSchema, generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createTetherClient, TetherApiError, type GateCreated, type TetherClient } from "../lib/client";
import { withApproval, type GateNotExecuted } from "../lib/client/ai-sdk";
import { startGateServer, type GateServer } from "./support/gate-server";
import { expectError, providers } from "./support/runtime";
import { until } from "./support/until";

// The TypeScript client of the open gates (lib/client) against a real Tether over HTTP: a requester's
// token opens a gate, a second person decides it (approve, edit, reject), the client's long-polls see
// the decision, and the outcome it reports completes the gate. withApproval runs inside a real AI SDK
// generateText loop whose mock model calls the gated tool.

const creditArgs = (amountCents = 5_000) => ({ account: `acct_${randomUUID().slice(0, 8)}`, amountCents });
const creditSchema = {
  type: "object",
  properties: { account: { type: "string" }, amountCents: { type: "integer", minimum: 1 } },
  required: ["account", "amountCents"],
  additionalProperties: false,
};

describe.each(providers())("the TypeScript gate client [%s]", (_provider, url) => {
  let tether: GateServer;
  let client: TetherClient;

  beforeAll(async () => {
    tether = await startGateServer(url);
    client = createTetherClient({ url: `${tether.url}/`, token: tether.requester.token });
  });
  afterAll(async () => {
    await tether.close();
  });

  it("requests, waits while a second person approves through the decision API, and reports what happened", async () => {
    const args = creditArgs();
    const key = `credit-${randomUUID()}`;
    const created = await client.requestApproval({
      action: { tool: "billing.issue_credit", args, schema: creditSchema },
      idempotencyKey: key,
      description: "Credit a customer for a late delivery.",
      evidence: [{ key: "ticket", value: "T-77", source: "helpdesk" }],
    });
    expect(created).toMatchObject({
      gateId: expect.any(String),
      status: "pending",
      statusUrl: `/api/gates/${created.gateId}`,
      created: true,
    });
    // The same key is the same gate: a retry after a crash does not ask twice.
    expect(
      await client.requestApproval({
        action: { tool: "billing.issue_credit", args, schema: creditSchema },
        idempotencyKey: key,
        description: "Credit a customer for a late delivery.",
        evidence: [{ key: "ticket", value: "T-77", source: "helpdesk" }],
      }),
    ).toMatchObject({ gateId: created.gateId, created: false });

    const waiting = client.waitForDecision<typeof args>(created.gateId, { timeoutMs: 60_000, pollSeconds: 20 });
    // Whoever requested it cannot approve it.
    await expectError(tether.decide(created.gateId, { decision: "approve" }, tether.requester.email), "FORBIDDEN");
    expect(await tether.decideByApi(created.gateId, { decision: "approve" })).toMatchObject({ status: 200 });

    const gate = await waiting;
    expect(gate).toMatchObject({
      gateId: created.gateId,
      status: "approved",
      action: { tool: "billing.issue_credit", args },
      approvedArgs: args,
      approvers: [tether.reviewer.email],
      decidedBy: tether.reviewer.email,
      outcome: null,
    });

    const receipt = { creditId: "cr_1", amountCents: args.amountCents };
    await client.reportOutcome(created.gateId, { status: "happened", receipt });
    await client.reportOutcome(created.gateId, { status: "happened", receipt }); // the same report again is fine
    const conflict = await client
      .reportOutcome(created.gateId, { status: "failed", detail: "changed my mind" })
      .catch((e) => e);
    expect(conflict).toBeInstanceOf(TetherApiError);
    expect(conflict).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(await client.getGate(created.gateId)).toMatchObject({
      status: "approved",
      outcome: { status: "happened", receipt, reportedAt: expect.any(String) },
    });
    // The gate's run records what the caller did.
    const { json } = await tether.call("GET", `/api/runs/${created.gateId}`, tether.requester.token);
    expect(json.recovery.definitelyHappened).toEqual([
      expect.objectContaining({
        tool: expect.stringMatching(/billing\.issue_credit$/),
        args,
        result: expect.objectContaining({ status: "happened", receipt }),
      }),
    ]);
  });

  it("an edit: the client receives the reviewer's arguments as approvedArgs", async () => {
    const args = creditArgs(9_000);
    const { gateId } = await client.requestApproval({
      action: { tool: "billing.issue_credit", args, schema: creditSchema },
      idempotencyKey: randomUUID(),
    });
    const waiting = client.waitForDecision<typeof args>(gateId, { timeoutMs: 60_000 });
    await tether.decide(gateId, { decision: "edit", args: { ...args, amountCents: 4_500 } });
    const gate = await waiting;
    expect(gate).toMatchObject({
      status: "edited",
      action: { args },
      approvedArgs: { ...args, amountCents: 4_500 },
      decidedBy: tether.reviewer.email,
    });
    await client.reportOutcome(gateId, { status: "happened", receipt: "cr_2" });
    expect((await client.getGate(gateId)).outcome).toMatchObject({ status: "happened", receipt: "cr_2" });
  });

  it("a rejection: the reason reaches the client, and no outcome can be reported", async () => {
    const { gateId } = await client.requestApproval({
      action: { tool: "billing.issue_credit", args: creditArgs() },
      idempotencyKey: randomUUID(),
    });
    const waiting = client.waitForDecision(gateId, { timeoutMs: 60_000 });
    expect(
      await tether.decideByApi(gateId, { decision: "reject", reason: "Refunded last week already." }),
    ).toMatchObject({ status: 200 });
    expect(await waiting).toMatchObject({
      status: "rejected",
      reason: "Refunded last week already.",
      approvedArgs: null,
      decidedBy: tether.reviewer.email,
    });
    await expect(client.reportOutcome(gateId, { status: "happened" })).rejects.toMatchObject({
      name: "TetherApiError",
      status: 409,
    });
  });

  it("waitForDecision returns the gate still pending at its timeout", async () => {
    const { gateId } = await client.requestApproval({
      action: { tool: "billing.issue_credit", args: creditArgs() },
      idempotencyKey: randomUUID(),
    });
    const started = Date.now();
    expect(await client.waitForDecision(gateId, { timeoutMs: 2_500, pollSeconds: 1 })).toMatchObject({
      gateId,
      status: "pending",
      decidedAt: null,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it("errors are TetherApiErrors with the code, the status and the fields", async () => {
    const invalid = await client
      .requestApproval({ action: { tool: "", args: {} }, idempotencyKey: randomUUID() })
      .catch((e) => e);
    expect(invalid).toBeInstanceOf(TetherApiError);
    expect(invalid).toMatchObject({ status: 400, code: "INVALID_INPUT" });
    expect(Object.keys(invalid.fieldErrors ?? {}).join(" ")).toMatch(/tool/);

    const key = randomUUID();
    await client.requestApproval({ action: { tool: "billing.issue_credit", args: creditArgs() }, idempotencyKey: key });
    await expect(
      client.requestApproval({ action: { tool: "billing.issue_credit", args: creditArgs() }, idempotencyKey: key }),
    ).rejects.toMatchObject({ status: 409, code: "CONFLICT" });
    await expect(client.getGate(`run_${randomUUID()}`)).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" });
    await expect(createTetherClient({ url: tether.url, token: "not-a-token" }).getGate("x")).rejects.toMatchObject({
      status: 401,
    });
    await expect(createTetherClient({ url: "http://127.0.0.1:9", token: "t" }).getGate("x")).rejects.toMatchObject({
      code: "NETWORK_ERROR",
      status: 0,
    });
  });

  describe("withApproval around an AI SDK tool, in generateText", () => {
    /** A model that calls issueCredit once with `input`, then answers with text. */
    const modelCalling = (input: unknown, toolCallId: string) =>
      new MockLanguageModelV2({
        doGenerate: async (options) => {
          const answered = options.prompt.some((m) => m.role === "tool");
          return answered
            ? {
                content: [{ type: "text", text: "done" }],
                finishReason: "stop",
                usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
                warnings: [],
              }
            : {
                content: [{ type: "tool-call", toolCallId, toolName: "issueCredit", input: JSON.stringify(input) }],
                finishReason: "tool-calls",
                usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
                warnings: [],
              };
        },
      });
    const creditTool = (calls: unknown[]) =>
      tool({
        description: "Issue a credit to a customer's account",
        inputSchema: z.object({ account: z.string(), amountCents: z.number().int().positive() }),
        execute: async (input) => {
          calls.push(input);
          return { creditId: `cr_${calls.length}`, amountCents: input.amountCents };
        },
      });

    async function gatedRun(
      input: { account: string; amountCents: number },
      decide: (gateId: string) => Promise<unknown>,
    ) {
      const calls: unknown[] = [];
      const toolCallId = `call_${randomUUID().slice(0, 8)}`;
      let pending: GateCreated | undefined;
      const issueCredit = withApproval(creditTool(calls), {
        client,
        name: "billing.issue_credit",
        description: (a) => `Credit ${a.amountCents} cents to ${a.account}`,
        timeoutMs: 60_000,
        onPending: (gate) => {
          pending = gate;
        },
      });
      const generating = generateText({
        model: modelCalling(input, toolCallId),
        tools: { issueCredit },
        prompt: "Credit the customer for the late parcel.",
        stopWhen: stepCountIs(3),
      });
      await until("the tool call opened a gate", () => pending !== undefined, 30_000);
      await decide(pending!.gateId);
      const result = await generating;
      return { result, calls, toolCallId, gateId: pending!.gateId, toolResult: result.steps[0].toolResults[0]?.output };
    }

    it("an edited approval: the original execute runs once, with the edited arguments, and the receipt is reported", async () => {
      const input = creditArgs(12_000);
      const { result, calls, gateId, toolResult } = await gatedRun(input, (id) =>
        tether.decide(id, { decision: "edit", args: { ...input, amountCents: 8_000 } }),
      );
      expect(calls).toEqual([{ ...input, amountCents: 8_000 }]);
      expect(toolResult).toEqual({ creditId: "cr_1", amountCents: 8_000 });
      expect(result.text).toBe("done");
      const gate = await client.getGate(gateId);
      expect(gate).toMatchObject({
        status: "edited",
        action: { tool: "billing.issue_credit", args: input },
        outcome: { status: "happened", receipt: { creditId: "cr_1", amountCents: 8_000 } },
      });
    });

    it("a rejection: the original execute never runs, and the model is told why", async () => {
      const { calls, gateId, toolResult } = await gatedRun(creditArgs(), (id) =>
        tether.decideByApi(id, { decision: "reject", reason: "Not eligible: the parcel arrived on time." }),
      );
      expect(calls).toEqual([]);
      expect(toolResult).toMatchObject({
        executed: false,
        gateId,
        status: "rejected",
        reason: "Not eligible: the parcel arrived on time.",
        message: expect.stringMatching(/rejected.*not performed.*arrived on time/s),
      } satisfies Partial<GateNotExecuted>);
      expect((await client.getGate(gateId)).outcome).toBeNull();
    });

    it("a tool that throws after the approval: the outcome is failed with its message, and the model gets the error", async () => {
      const input = creditArgs();
      let pending: GateCreated | undefined;
      const failing = withApproval(
        tool({
          inputSchema: z.object({ account: z.string(), amountCents: z.number().int().positive() }),
          execute: async (): Promise<{ creditId: string }> => {
            throw new Error("billing is down");
          },
        }),
        {
          client,
          name: "billing.issue_credit",
          timeoutMs: 60_000,
          onPending: (gate) => {
            pending = gate;
          },
        },
      );
      const generating = generateText({
        model: modelCalling(input, `call_${randomUUID().slice(0, 8)}`),
        tools: { issueCredit: failing },
        prompt: "Credit it.",
        stopWhen: stepCountIs(3),
      });
      await until("the tool call opened a gate", () => pending !== undefined, 30_000);
      await tether.decideByApi(pending!.gateId, { decision: "approve" });
      const result = await generating;
      expect(result.steps[0].content.find((part) => part.type === "tool-error")).toMatchObject({
        error: expect.objectContaining({ message: "billing is down" }),
      });
      expect((await client.getGate(pending!.gateId)).outcome).toMatchObject({
        status: "failed",
        detail: "billing is down",
      });
    });

    it("the idempotency key is the tool's name and the AI SDK's toolCallId: the same call finds its gate", async () => {
      const input = creditArgs();
      const {
        gateId,
        toolCallId,
        calls: first,
      } = await gatedRun(input, (id) => tether.decideByApi(id, { decision: "approve" }));
      expect(first).toEqual([input]);
      expect(
        await client.requestApproval({
          action: {
            tool: "billing.issue_credit",
            args: input,
            schema: asSchema(creditTool([]).inputSchema).jsonSchema as Record<string, unknown>,
          },
          idempotencyKey: `billing.issue_credit:${toolCallId}`,
          description: `Credit ${input.amountCents} cents to ${input.account}`,
        }),
      ).toMatchObject({ gateId, created: false });
      // A second run of the same tool call (same toolCallId) finds the gate it acted on and does not act again.
      const calls: unknown[] = [];
      const again = withApproval(creditTool(calls), {
        client,
        name: "billing.issue_credit",
        description: (a) => `Credit ${a.amountCents} cents to ${a.account}`,
        timeoutMs: 5_000,
      });
      const output = await again.execute!(input, { toolCallId, messages: [] });
      expect(calls).toEqual([]);
      expect(output).toMatchObject({
        executed: false,
        gateId,
        status: "already_reported",
        outcome: { status: "happened" },
      });
    });
  });
});
