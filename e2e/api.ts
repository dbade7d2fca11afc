import { expect, type APIRequestContext } from "@playwright/test";
import { E2E_API_TOKEN } from "./fixtures";

// How a spec sets up its own world and runs: through the public HTTP API (bearer token) and the sandbox
// world's control routes, exactly as an external client would. The token is an admin's (the server's
// TETHER_BOOTSTRAP_TOKEN): the sandbox answers admins and Tether's own tools only. Every spec creates what it decides on, so
// specs do not depend on each other, on the seed's packets or on file order.
//   const api = tetherApi(request);   // the `request` fixture, on the e2e server's baseURL
//   const { runId, packet } = await api.startRefundAwaitingApproval();

export type ApiRun = {
  id: string;
  agent: string;
  agentVersion: string;
  status: string;
  step: number;
  error: string | null;
};
export type ApiPacket = {
  id: string;
  runId: string;
  step: number;
  kind: string;
  tool: string;
  args: Record<string, unknown>;
  status: string;
  queue: string;
  assignee: string | null;
};

const TERMINAL = ["COMPLETED", "FAILED", "CANCELLED"];

export function tetherApi(request: APIRequestContext) {
  const headers = { authorization: `Bearer ${E2E_API_TOKEN}` };

  async function call<T>(method: "GET" | "POST" | "PUT", url: string, data?: unknown): Promise<T> {
    const response = await send(method, url, data);
    const body = await response.text();
    expect(response.ok(), `${method} ${url} → ${response.status()} ${body}`).toBe(true);
    return JSON.parse(body) as T;
  }

  /**
   * A GET that meets a connection reset is sent again once: under load the server may close a kept-alive socket
   * just as the request goes out on it (seen with two suites on 2 cores). A POST or PUT is never sent twice.
   */
  async function send(method: "GET" | "POST" | "PUT", url: string, data?: unknown) {
    try {
      return await request.fetch(url, { method, headers, data });
    } catch (error) {
      if (method !== "GET" || !/ECONNRESET|socket hang up/.test(String(error))) throw error;
      return request.fetch(url, { method, headers, data });
    }
  }

  const api = {
    /** A paid order for a new customer (no refund history, so the refund agent's evidence is clean). */
    createOrder: (input: { amountCents: number; customerName?: string }) =>
      call<{ id: string; customerEmail: string }>("POST", "/api/sandbox/orders", input).then((o) => ({
        orderId: o.id,
        customerEmail: o.customerEmail,
      })),

    /** Sets fault knobs of one sandbox system (unset knobs keep their value). */
    setFaults: (
      system: string,
      knobs: { latencyMs?: number; errorRate?: number; timeoutAfterApply?: number; holdMs?: number },
    ) => call<unknown>("PUT", `/api/sandbox/faults/${system}`, knobs),

    /** The effects the sandbox applied for a run (its ledger), optionally of one system. */
    ledger: (runId: string, system?: string) =>
      call<{ entries: Array<{ system: string; action: string; operationId: string | null; data: unknown }> }>(
        "GET",
        `/api/sandbox/ledger?runId=${encodeURIComponent(runId)}${system ? `&system=${encodeURIComponent(system)}` : ""}`,
      ).then((r) => r.entries),

    startRun: (agent: string, input: unknown) =>
      call<{ id: string }>("POST", "/api/runs", { agent, input }).then((r) => ({ id: r.id })),

    getRun: (id: string) => call<{ run: ApiRun }>("GET", `/api/runs/${id}`).then((r) => r.run),

    /** Polls until the run is in one of the statuses (fails fast when it ends in another). */
    async waitForStatus(runId: string, statuses: string[], timeoutMs = 20_000): Promise<ApiRun> {
      let run: ApiRun | undefined;
      await expect
        .poll(
          async () => {
            run = await api.getRun(runId);
            if (!statuses.includes(run.status) && TERMINAL.includes(run.status))
              throw new Error(`run ${runId} ended ${run.status} (${run.error}), expected ${statuses.join("/")}`);
            return run.status;
          },
          { timeout: timeoutMs, message: `run ${runId} to reach ${statuses.join("/")}` },
        )
        .toMatch(new RegExp(`^(${statuses.join("|")})$`));
      return run!;
    },

    /** The run's first pending decision packet, once the run has asked for one. */
    async waitForPacket(runId: string, timeoutMs = 20_000): Promise<ApiPacket> {
      let packet: ApiPacket | undefined;
      await expect
        .poll(
          async () => {
            packet = (await call<{ packets: ApiPacket[] }>("GET", `/api/packets?runId=${runId}&status=pending`))
              .packets[0];
            return packet?.id ?? null;
          },
          { timeout: timeoutMs, message: `a pending packet of run ${runId}` },
        )
        .not.toBeNull();
      return packet!;
    },

    /** refund-agent on a fresh order over the $100 limit: the run waits at payments.refund's gate. */
    async startRefundAwaitingApproval(amountCents = 24_000) {
      const { orderId } = await api.createOrder({ amountCents });
      const { id: runId } = await api.startRun("refund-agent", { orderId, reason: "The parcel arrived damaged." });
      const packet = await api.waitForPacket(runId);
      return { runId, orderId, packet };
    },

    /** deploy-agent: deploys.run_migration always asks a person (queue "operators"). */
    async startDeployAwaitingApproval(migration = `0050_e2e_${Date.now().toString(36)}`) {
      const { id: runId } = await api.startRun("deploy-agent", { migration, reason: "Added by an end-to-end test." });
      const packet = await api.waitForPacket(runId);
      return { runId, packet };
    },
  };
  return api;
}
