import { Client } from "@langchain/langgraph-sdk";
import { expect, test } from "@playwright/test";
import { tetherApi } from "./api";
import { E2E_API_TOKEN } from "./fixtures";

// The Agent Inbox's calls (docs/langgraph.md) against the production server (`next start`): the LangGraph
// SDK's own Client lists the waiting refund as an interrupted thread, resumes it over runs.stream (SSE
// through Next), and the embedded worker completes the run. Without TETHER_LANGGRAPH_CORS_ORIGINS the
// preflight allows no other origin.

test("the LangGraph SDK finds a waiting refund, resumes it over SSE, and the run completes", async ({
  request,
  baseURL,
}) => {
  const api = tetherApi(request);
  const { runId, packet } = await api.startRefundAwaitingApproval();
  const created = await request.post("/api/tokens", {
    headers: { authorization: `Bearer ${E2E_API_TOKEN}` },
    data: { name: `agent-inbox-${Date.now()}`, scopes: ["runs:read", "packets:decide"], user: "reviewer@example.com" },
  });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const apiUrl = `${baseURL}/api/langgraph`;
  const client = new Client({ apiUrl, apiKey: token, callerOptions: { maxRetries: 0 } });

  expect((await request.get("/api/langgraph/info")).status()).toBe(200);
  const threads = await client.threads.search({
    status: "interrupted",
    metadata: { graph_id: "refund-agent" },
    limit: 100,
  });
  const thread = threads.find((t) => t.thread_id === runId);
  expect(thread?.status).toBe("interrupted");
  const [interrupt] = thread!.interrupts[packet.id] as Array<{
    value: { action_request: { action: string }; config: Record<string, boolean> };
  }>;
  expect(interrupt.value.action_request.action).toBe("payments.refund");
  expect(interrupt.value.config.allow_accept).toBe(true);

  const parts: Array<{ event: string; data: { event?: string; metadata?: { langgraph_node?: string } } }> = [];
  for await (const part of client.runs.stream(runId, "refund-agent", {
    command: { resume: [{ type: "accept", args: null }] },
    streamMode: "events",
  }))
    parts.push(part as (typeof parts)[number]);
  expect(parts[0].event).toBe("metadata");
  expect(parts.filter((p) => p.event === "events").map((p) => p.data.metadata?.langgraph_node)).toContain(
    "gate.decided",
  );
  await expect.poll(async () => (await client.threads.get(runId)).status, { timeout: 30_000 }).toBe("idle");
  await expect.poll(async () => (await api.getRun(runId)).status).toBe("COMPLETED");

  const preflight = await request.fetch("/api/langgraph/threads/search", {
    method: "OPTIONS",
    headers: { origin: "https://inbox.example", "access-control-request-method": "POST" },
  });
  expect(preflight.status()).toBe(204);
  expect(preflight.headers()["access-control-allow-origin"]).toBeUndefined();
});
