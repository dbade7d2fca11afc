import { execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateServer, type GateServer } from "./support/gate-server";
import { providers } from "./support/runtime";
import { until } from "./support/until";

// The Python client (clients/python/tether_gate.py, run by Debian's /usr/bin/python3, standard library only)
// and the CLI (`tether gate …`) against a real Tether over HTTP: each requests a gate as the requester, a
// second person decides it, and the waiting process acts on the decision (or does not) and reports it.

const PYTHON = "/usr/bin/python3"; // Debian's, not a pyenv shim: the client must need nothing but the standard library
const execFileAsync = promisify(execFile);

type Line = { event: string; [key: string]: unknown };

/** A Python process; its JSON lines on stdout as they arrive, its exit code and stderr at the end. */
function spawnPython(args: string[], env: Record<string, string>) {
  const child = spawn(PYTHON, ["-B", ...args], {
    env: { PATH: "/usr/bin:/bin", PYTHONNOUSERSITE: "1", ...env } as unknown as NodeJS.ProcessEnv,
  });
  const out = { stdout: "", stderr: "", code: null as number | null };
  child.stdout.on("data", (chunk) => {
    out.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    out.stderr += chunk;
  });
  const exited = new Promise<number>((resolve) =>
    child.on("exit", (code) => {
      out.code = code;
      resolve(code ?? -1);
    }),
  );
  const lines = (): Line[] =>
    out.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
  const event = async (name: string) => {
    await until(
      `python printed ${name} (stdout: ${out.stdout} stderr: ${out.stderr})`,
      () => lines().some((l) => l.event === name) || out.code !== null,
      30_000,
    );
    const line = lines().find((l) => l.event === name);
    if (!line) throw new Error(`python exited ${out.code} without ${name}: ${out.stdout} ${out.stderr}`);
    return line;
  };
  return { out, lines, event, exited, kill: () => child.kill() };
}

describe.each(providers())("the Python gate client and the CLI [%s]", (_provider, url) => {
  let tether: GateServer;
  const running: Array<{ kill: () => void }> = [];

  beforeAll(async () => {
    tether = await startGateServer(url);
  });
  afterAll(async () => {
    for (const p of running) p.kill();
    await tether.close();
  });

  const gateEnv = () => ({ TETHER_URL: tether.url, TETHER_TOKEN: tether.requester.token });
  const gateOf = async (gateId: string) =>
    (await tether.call("GET", `/api/gates/${gateId}`, tether.requester.token)).json;

  describe("tether_gate.py", () => {
    const driver = (args: Record<string, unknown>) => {
      const p = spawnPython(["tests/support/gate_driver.py"], {
        ...gateEnv(),
        GATE_TOOL: "billing.issue_credit",
        GATE_ARGS: JSON.stringify(args),
      });
      running.push(p);
      return p;
    };

    it("@requires_approval: an edit by a second person; the function runs once with the edited arguments and its result is the receipt", async () => {
      const account = `acct_${randomUUID().slice(0, 8)}`;
      const py = driver({ account, amount_cents: 7_000 });
      const gateId = String((await py.event("pending")).gateId);
      const requested = await gateOf(gateId);
      expect(requested).toMatchObject({
        status: "pending",
        action: { tool: "billing.issue_credit", args: { account, amount_cents: 7_000, note: "" } },
      });
      await tether.decide(gateId, {
        decision: "edit",
        args: { account, amount_cents: 3_500, note: "half: partial delay" },
      });
      expect(await py.exited).toBe(0);
      expect(py.lines().filter((l) => l.event === "ran")).toEqual([
        { event: "ran", args: { account, amount_cents: 3_500, note: "half: partial delay" } },
      ]);
      expect(await py.event("result")).toEqual({
        event: "result",
        result: { creditId: `cr_${account}`, amountCents: 3_500 },
      });
      expect(await gateOf(gateId)).toMatchObject({
        status: "edited",
        decidedBy: tether.reviewer.email,
        outcome: { status: "happened", receipt: { creditId: `cr_${account}`, amountCents: 3_500 } },
      });
    });

    it("@requires_approval: a rejection raises GateRefused with the reason, and the function never runs", async () => {
      const py = driver({ account: `acct_${randomUUID().slice(0, 8)}`, amount_cents: 90_000 });
      const gateId = String((await py.event("pending")).gateId);
      expect(
        await tether.decideByApi(gateId, { decision: "reject", reason: "Over the goodwill budget." }),
      ).toMatchObject({ status: 200 });
      expect(await py.exited).toBe(0);
      expect(py.lines().some((l) => l.event === "ran")).toBe(false);
      expect(await py.event("refused")).toEqual({
        event: "refused",
        status: "rejected",
        reason: "Over the goodwill budget.",
        gateId,
      });
      expect((await gateOf(gateId)).outcome).toBeNull();
    });

    it("as a script: waits for an approval and prints the approved arguments; a bad request is exit 2 naming the field", async () => {
      const args = { service: "api", version: `v${Date.now()}` };
      const py = spawnPython(
        [
          "clients/python/tether_gate.py",
          "--tool",
          "deploys.promote",
          "--args",
          JSON.stringify(args),
          "--description",
          "Promote to production",
          "--timeout",
          "60",
        ],
        gateEnv(),
      );
      running.push(py);
      await until(
        `the script announced its gate (${py.out.stderr})`,
        () => /gate \S+ is waiting/.test(py.out.stderr) || py.out.code !== null,
        30_000,
      );
      const gateId = /gate (\S+) is waiting/.exec(py.out.stderr)![1];
      await tether.decideByApi(gateId, { decision: "approve" });
      expect(await py.exited).toBe(0);
      expect(JSON.parse(py.out.stdout)).toEqual(args);
      expect(py.out.stderr).toContain(`gate ${gateId} approved by ${tether.reviewer.email}`);
      expect(await gateOf(gateId)).toMatchObject({ status: "approved", outcome: { status: "happened" } });

      const bad = spawnPython(["clients/python/tether_gate.py", "--tool", "", "--args", "{}"], gateEnv());
      expect(await bad.exited).toBe(2);
      expect(bad.out.stderr).toMatch(/400 INVALID_INPUT.*tool/s);
      expect(bad.out.stdout).toBe("");
    });
  });

  describe("tether gate", () => {
    const cli = (...args: string[]) =>
      execFileAsync(process.execPath, ["bin/tether.mjs", "gate", ...args], {
        env: { ...process.env, ...gateEnv() },
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );

    it("request prints the gate; wait exits 0 once approved and prints the approved arguments; outcome reports", async () => {
      const key = `ci-${randomUUID()}`;
      const requested = await cli(
        "request",
        "--tool",
        "deploys.promote",
        "--args",
        '{"service":"web","sha":"abc123"}',
        "--description",
        "Ship it",
        "--key",
        key,
        "--expires-in",
        "2h",
      );
      expect(requested).toMatchObject({ code: 0 });
      const created = JSON.parse(requested.stdout);
      expect(created).toMatchObject({ gateId: expect.any(String), status: "pending", created: true });
      expect(
        JSON.parse(
          (
            await cli(
              "request",
              "--tool",
              "deploys.promote",
              "--args",
              '{"service":"web","sha":"abc123"}',
              "--description",
              "Ship it",
              "--key",
              key,
              "--expires-in",
              "2h",
            )
          ).stdout,
        ),
      ).toMatchObject({ gateId: created.gateId, created: false });
      expect((await gateOf(created.gateId)).expiresAt).not.toBeNull();

      const waiting = cli("wait", created.gateId, "--timeout", "60");
      await tether.decideByApi(created.gateId, { decision: "approve" });
      const waited = await waiting;
      expect(waited.code).toBe(0);
      expect(JSON.parse(waited.stdout)).toMatchObject({
        gateId: created.gateId,
        status: "approved",
        approvedArgs: { service: "web", sha: "abc123" },
      });

      const reported = await cli("outcome", created.gateId, "--status", "happened", "--receipt", '{"deployId":"d-9"}');
      expect(reported.code).toBe(0);
      expect((await gateOf(created.gateId)).outcome).toMatchObject({
        status: "happened",
        receipt: { deployId: "d-9" },
      });
    });

    it(
      "request --wait exits 3 on a rejection with the reason; wait exits 4 while still pending; bad input exits 2",
      { timeout: 90_000 },
      async () => {
        const service = `db-${randomUUID().slice(0, 8)}`;
        const requesting = cli(
          "request",
          "--tool",
          "deploys.promote",
          "--args",
          JSON.stringify({ service }),
          "--wait",
          "60",
        );
        let gateId: string | undefined;
        await until(
          "the CLI's gate exists",
          async () => {
            const { json } = await tether.call("GET", "/api/packets?status=pending", tether.reviewer.token);
            gateId = json.packets.find(
              (p: { args: { service?: string }; runId: string }) => p.args.service === service,
            )?.runId;
            return gateId !== undefined;
          },
          30_000,
        );
        await tether.decide(gateId!, { decision: "reject", reason: "Freeze until Monday." });
        const rejected = await requesting;
        expect(rejected.code).toBe(3);
        expect(JSON.parse(rejected.stdout)).toMatchObject({
          gateId,
          status: "rejected",
          reason: "Freeze until Monday.",
        });
        expect(rejected.stderr).toContain("Freeze until Monday.");

        const pending = JSON.parse((await cli("request", "--tool", "deploys.promote", "--args", "{}")).stdout);
        const timedOut = await cli("wait", pending.gateId, "--timeout", "1");
        expect(timedOut.code).toBe(4);
        expect(JSON.parse(timedOut.stdout)).toMatchObject({ status: "pending" });

        expect(await cli("request", "--tool", "deploys.promote", "--args", "{oops")).toMatchObject({
          code: 2,
          stderr: expect.stringMatching(/--args is not valid JSON/),
        });
        expect(await cli("request", "--tool", "", "--args", "{}")).toMatchObject({
          code: 2,
          stderr: expect.stringMatching(/400 INVALID_INPUT/),
        });
        expect(await cli("wait", `run_${randomUUID()}`)).toMatchObject({
          code: 2,
          stderr: expect.stringMatching(/404/),
        });
      },
    );
  });
});
