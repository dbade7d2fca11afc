import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isAppError, TERMINAL_STATUSES, type RunStatus } from "../lib/runtime";
import { deployAgent, refundAgent } from "./support/agents";
import { createTestRuntime, grant, uid } from "./support/runtime";
import { createWorkerFleet, type FleetWorker, type WorkerFleet } from "./support/soak-fleet";
import { planSoak, type PlannedRun } from "./support/soak-plan";
import { soakRandom, soakSeed } from "./support/soak-random";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// A short kill -9 soak (docs/security.md), on Postgres: three real worker processes share the runs, and for
// SOAK_MS a random one is SIGKILLed at a random moment and replaced, once all three at once (a blackout).
// Meanwhile runs wait on a slow world (every call held LATENCY_MS, so kills land mid-call), on approvals a
// reviewer decides three times over, and on deploy callbacks delivered three times, some while no worker
// is up. Then the last workers finish. Every run must end; the world's ledger must show each effect once
// per operation; each callback is consumed once and each decision wins once. An unsafe call whose
// outcome is truly unknown is settled from the ledger, as a person would, and must then end too.
// Seeded: TETHER_SOAK_SEED=<seed> replays the schedule (process timing still varies).

const WORKERS = 3;
const LEASE_MS = 1_500; // a dead worker's runs come back this long after its last heartbeat
const LATENCY_MS = 400; // under LEASE_MS: a dead worker's last request lands before anyone takes over
const SOAK_MS = 25_000;
const RUNS = { refund: 8, approval: 6, deploy: 6 };
const SETTLE_MS = 40_000; // after the soak, the most the last workers get to end every run
const REVIEWER = "soak-reviewer@test";

const postgresUrl = inject("postgresUrl");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Tracked = PlannedRun & {
  runId?: string;
  migration?: string;
  packetId?: string;
  decisions: Array<{ ok: boolean; code?: string; whileDown: boolean }>;
  callbacks: Array<{ duplicate: boolean; whileDown: boolean }>;
  settled: Array<{ packetId: string; tool: string; decision: "happened" | "retry" }>;
  /** Approval packets asked again after the first was decided (and answered by the soak's reviewer). */
  askedAgain: number;
};
type Due = {
  at: number;
  kind: "start" | "decide" | "callback" | "kill" | "blackout" | "blackout-end";
  run?: Tracked;
  targeted?: boolean;
  done?: boolean;
};
type Kill = { at: number; slot: number; owner: string | null; held: number; inFlight: number; blackout: boolean };

const TOOL_PATHS: Record<string, { system: string; path: string }> = {
  "deploy.migrate": { system: "deploys", path: "/deploys/migrate" },
  "payments.refund": { system: "payments", path: "/payments/refund" },
  "mail.send": { system: "mail", path: "/mail/send" },
};

describe.skipIf(!postgresUrl)("kill -9 soak: three workers SIGKILLed at random while runs wait [postgres]", () => {
  const seed = soakSeed();
  const plan = planSoak(soakRandom(seed), {
    soakMs: SOAK_MS,
    runs: RUNS,
    killGapMs: [1_200, 3_000],
    blackoutMs: [1_200, 2_000],
  });
  const refunder = refundAgent(uid("soak-refund"));
  const approvalRefunder = refundAgent(uid("soak-approve"));
  const deployer = deployAgent(uid("soak-deploy"));
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  let fleet: WorkerFleet | undefined;

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(postgresUrl!, {
      agents: [refunder, approvalRefunder, deployer],
      tools: worldTools(world.url),
    });
    await grant(t.runtime, refunder);
    await grant(t.runtime, approvalRefunder, { "payments.refund": { effect: "require_approval" } });
    await grant(t.runtime, deployer);
    fleet = createWorkerFleet(
      {
        DATABASE_URL: postgresUrl!,
        WORLD_URL: world.url,
        TETHER_LEASE_MS: String(LEASE_MS),
        AGENTS: JSON.stringify([
          { kind: "refund", slug: refunder.slug },
          { kind: "refund", slug: approvalRefunder.slug },
          { kind: "deploy", slug: deployer.slug },
        ]),
      },
      WORKERS,
    );
  });
  // However the test ends, no worker process outlives it.
  afterAll(async () => {
    await fleet?.shutdown();
    await t?.close();
    await world?.close();
  });

  it(
    "every run ends, no effect happens twice, each callback is consumed once and each decision wins once",
    async () => {
      console.log(
        `soak: seed ${seed} (replay with TETHER_SOAK_SEED=${seed}); ${plan.kills.length} kills and a blackout planned over ${SOAK_MS / 1000} s`,
      );
      world.faults.latencyMs = LATENCY_MS;
      await fleet!.fill();
      const workers = fleet!;

      const runs: Tracked[] = plan.runs.map((r) => ({
        ...r,
        decisions: [],
        callbacks: [],
        settled: [],
        askedAgain: 0,
      }));
      const queue: Due[] = [
        ...runs.flatMap((run): Due[] => [
          { at: run.startAt, kind: "start", run },
          ...(run.decideAt ?? []).map((at): Due => ({ at, kind: "decide", run })),
          ...(run.callbackAt ?? []).map((at): Due => ({ at, kind: "callback", run })),
        ]),
        ...plan.kills.map((k): Due => ({ at: k.at, kind: "kill", targeted: k.targeted })),
        { at: plan.blackout.at, kind: "blackout" } satisfies Due,
        { at: plan.blackout.at + plan.blackout.ms, kind: "blackout-end" } satisfies Due,
      ].sort((a, b) => a.at - b.at);
      const kills: Kill[] = [];
      let skippedKills = 0;
      const chooser = soakRandom(seed ^ 0x5bd1e995); // victims are chosen as the soak goes: a stream of their own
      const unexpectedUnknowns = new Set<string>();
      const unansweredUnknowns = new Set<string>(); // packets of calls the world did not answer in time
      let snapshot = new Map<string, { status: RunStatus; leaseOwner: string | null }>();
      let blackout = false;
      const began = Date.now();

      const agentOf = { refund: refunder, approval: approvalRefunder, deploy: deployer };
      async function start(run: Tracked, index: number) {
        let input: Record<string, unknown>;
        if (run.kind === "deploy") {
          run.migration = uid("soak-m");
          input = { migration: run.migration };
        } else {
          const orderId = uid("soak-order");
          world.orders.set(orderId, { id: orderId, amountCents: 1_000 + index, status: "paid" });
          input = { orderId, email: "soak@example.com" };
        }
        run.runId = (await t.runtime.startRun({ agent: agentOf[run.kind].slug, input })).run.id;
      }

      /** A reviewer's decision, delivered again and again (a double click, a retried request). */
      async function decide(due: Due) {
        const run = due.run!;
        if (!run.runId) return;
        if (!run.packetId) {
          const [packet] = await t.store.findPackets({ runId: run.runId!, status: ["PENDING"], kind: "APPROVAL" });
          if (!packet) return; // the run has not asked yet: try again next tick
          run.packetId = packet.id;
        }
        const whileDown = workers.ready().length === 0;
        const input =
          run.decision === "approve"
            ? { decision: "approve" as const }
            : { decision: "reject" as const, reason: "soak: not this one" };
        try {
          await t.runtime.decidePacket({ packetId: run.packetId, reviewer: REVIEWER, input });
          run.decisions.push({ ok: true, whileDown });
        } catch (error) {
          if (!isAppError(error)) throw error;
          run.decisions.push({ ok: false, code: error.code, whileDown });
        }
        due.done = true;
      }

      /** The deploy system's callback, delivered again (its retries: the same dedup key each time). */
      async function callBack(due: Due) {
        const run = due.run!;
        if (!run.runId) return;
        const whileDown = workers.ready().length === 0;
        const { duplicate } = await t.runtime.deliverSignal(run.runId!, {
          type: "deploy.finished",
          dedupKey: `deploy-finished:${run.migration}`,
          payload: { migration: run.migration, ok: true },
        });
        run.callbacks.push({ duplicate, whileDown });
        due.done = true;
      }

      /** Our runs the worker held at the last look, and those of them with a call in flight in the world now. */
      const load = (owner: string | null) => {
        const mine = new Set(
          [...snapshot].filter(([, r]) => owner !== null && r.leaseOwner === owner).map(([id]) => id),
        );
        const calling = new Set(
          world.requests
            .filter((r) => r.runId && mine.has(r.runId) && Date.now() - r.at < LATENCY_MS)
            .map((r) => r.runId),
        );
        return { held: mine.size, inFlight: calling.size };
      };
      const killed = (victim: FleetWorker, at: number, inBlackout: boolean): Kill => ({
        at,
        slot: victim.slot,
        owner: victim.owner,
        blackout: inBlackout,
        ...load(victim.owner),
      });

      /** A random ready worker: the one driving a call in flight when the plan says so, else weighted by the runs it holds. */
      function chooseVictim(targeted: boolean): FleetWorker | null {
        const ready = workers.ready();
        if (ready.length === 0) return null;
        const calling = ready.filter((w) => load(w.owner).inFlight > 0);
        if (targeted && calling.length > 0) return chooser.pick(calling);
        const weights = ready.map((w) => load(w.owner).held + 1);
        let ticket = chooser.next() * weights.reduce((a, b) => a + b, 0);
        return ready.find((_, i) => (ticket -= weights[i]) < 0) ?? ready[ready.length - 1];
      }

      async function control(due: Due, at: number) {
        if (due.kind === "kill" && !blackout) {
          const victim = chooseVictim(due.targeted!);
          if (victim) {
            kills.push(killed(victim, at, false));
            await workers.killAndReplace(victim.slot);
          } else skippedKills++; // every worker is still starting
        }
        if (due.kind === "blackout") {
          blackout = true;
          const records = workers.ready().map((w) => killed(w, at, true));
          await workers.killAll();
          kills.push(...records);
        }
        if (due.kind === "blackout-end") {
          blackout = false;
          void workers.fill(); // not awaited: the soak goes on while they start
        }
        due.done = true;
      }

      /**
       * A call left "may have happened": settle it as a person would, from the world's own record — once no
       * request of that run to that system can still be in flight. Expected for the unsafe deploy after a
       * kill; for the idempotent refund and the reconcilable mail only when the world did not answer in time
       * (a machine under load), never merely because a worker died.
       */
      async function settleUnknownOutcomes() {
        for (const run of runs) {
          if (!run.runId || snapshot.get(run.runId)?.status !== "NEEDS_ATTENTION") continue;
          for (const packet of await t.store.findPackets({
            runId: run.runId,
            status: ["PENDING"],
            kind: "UNKNOWN_OUTCOME",
          })) {
            const target = TOOL_PATHS[packet.tool];
            const why = packet.content.reasoning ?? "";
            if (packet.tool !== "deploy.migrate") {
              if (/attempts failed|lookup could not tell/.test(why)) unansweredUnknowns.add(packet.id);
              else unexpectedUnknowns.add(`${run.key} ${run.runId}: ${packet.tool} — ${why}`);
            }
            const quiet = () =>
              Date.now() -
                Math.max(
                  0,
                  ...world.requests.filter((r) => r.runId === run.runId && r.path === target.path).map((r) => r.at),
                ) >=
              LATENCY_MS + 700;
            if (!quiet()) continue;
            const pending = (await t.runtime.getRun(run.runId)).state.pending;
            if (!quiet()) continue;
            const intentId = pending?.kind === "gate" ? pending.intentId : undefined;
            const applied = world
              .effects(target.system)
              .find((e) => e.runId === run.runId && (packet.tool === "deploy.migrate" || e.operationId === intentId));
            const receipt = applied?.data as { deployId?: string; refundId?: string; messageId?: string } | undefined;
            const input = applied
              ? {
                  decision: "happened" as const,
                  receipt: receipt?.deployId ?? receipt?.refundId ?? receipt?.messageId,
                  note: "soak: the world's ledger shows it",
                }
              : { decision: "retry" as const };
            await t.runtime.decidePacket({ packetId: packet.id, reviewer: REVIEWER, input });
            run.settled.push({ packetId: packet.id, tool: packet.tool, decision: input.decision });
          }
        }
      }

      /**
       * An approval asked again (its evidence could not be re-read in time, so the first was not used):
       * the reviewer answers the new packet too, once the three deliveries to the first are done.
       */
      async function answerAskedAgain() {
        for (const run of runs) {
          if (run.kind !== "approval" || !run.runId || snapshot.get(run.runId)?.status !== "WAITING_APPROVAL") continue;
          if (queue.some((d) => d.run === run && d.kind === "decide" && !d.done)) continue;
          for (const packet of await t.store.findPackets({ runId: run.runId, status: ["PENDING"], kind: "APPROVAL" })) {
            if (packet.id === run.packetId) continue;
            const input =
              run.decision === "approve"
                ? { decision: "approve" as const }
                : { decision: "reject" as const, reason: "soak: not this one" };
            await t.runtime.decidePacket({ packetId: packet.id, reviewer: REVIEWER, input });
            run.askedAgain++;
          }
        }
      }

      const isEnded = (run: Tracked) => {
        const status = run.runId ? snapshot.get(run.runId)?.status : undefined;
        return status !== undefined && TERMINAL_STATUSES.includes(status);
      };

      for (let index = 0; ; index++) {
        const now = Date.now() - began;
        const ids = runs.flatMap((r) => (r.runId ? [r.runId] : []));
        const rows = await t.db.run.findMany({
          where: { id: { in: ids } },
          select: { id: true, status: true, leaseOwner: true },
        });
        snapshot = new Map(rows.map((r) => [r.id, { status: r.status as RunStatus, leaseOwner: r.leaseOwner }]));

        const due = queue.filter((d) => !d.done && d.at <= now);
        for (const d of due.filter((d) => d.kind === "start")) {
          await start(d.run!, runs.indexOf(d.run!));
          d.done = true;
        }
        for (const d of due.filter((d) => d.kind === "kill" || d.kind === "blackout" || d.kind === "blackout-end"))
          await control(d, now);
        await Promise.all(
          due
            .filter((d) => d.kind === "decide" || d.kind === "callback")
            .map((d) => (d.kind === "decide" ? decide(d) : callBack(d))),
        );
        if (index % 4 === 0) {
          await settleUnknownOutcomes();
          await answerAskedAgain();
        }

        if (now >= SOAK_MS && queue.every((d) => d.done) && runs.every(isEnded)) break;
        if (now > SOAK_MS + SETTLE_MS) {
          const stuck = runs
            .filter((r) => !isEnded(r))
            .map((r) => `${r.key} ${r.runId ?? "(not started)"} ${r.runId ? snapshot.get(r.runId)?.status : ""}`);
          const undone = queue.filter((d) => !d.done).map((d) => `${d.kind} ${d.run?.key ?? `at ${d.at} ms`}`);
          throw new Error(
            `seed ${seed}: runs did not end within ${SETTLE_MS / 1000} s after the soak: ${stuck.join("; ")}; undone: ${undone.join("; ")}\n${workers.logLines("[error]").slice(-20).join("\n")}`,
          );
        }
        await sleep(50);
      }
      const seconds = ((Date.now() - began) / 1000).toFixed(1);

      // ---- what the soak did to the runs (for the summary, and to make sure it bit)
      const recovered = new Set<string>();
      for (const run of runs) {
        const events = await t.store.listEvents(run.runId!, { limit: 10_000 });
        if (events.some((e) => e.type === "effect.recovering")) recovered.add(run.key);
      }
      const settled = runs.flatMap((r) => r.settled);
      const approvals = runs.filter((r) => r.kind === "approval");
      const deploys = runs.filter((r) => r.kind === "deploy");
      console.log(
        `soak: seed ${seed}: ${runs.length} runs (${RUNS.refund} refund, ${RUNS.approval} approval — ${approvals.filter((r) => r.decision === "reject").length} rejected, ${RUNS.deploy} deploy) all ended in ${seconds} s; ` +
          `${kills.length} SIGKILLs (${kills.filter((k) => k.held > 0).length} of a worker holding runs, ${kills.filter((k) => k.inFlight > 0).length} with calls in flight, ${kills.filter((k) => k.blackout).length} in a ${plan.blackout.ms} ms blackout; ${skippedKills} skipped, no worker ready), ${workers.spawned()} worker processes; ` +
          `${recovered.size} runs resumed an effect mid-call; ${settled.length} unknown outcomes settled (${settled.filter((s) => s.decision === "happened").length} happened, ${settled.filter((s) => s.decision === "retry").length} retried; ${unansweredUnknowns.size} of a refund or mail the world did not answer in time); ` +
          `${deploys.flatMap((r) => r.callbacks).length} callbacks (${deploys.flatMap((r) => r.callbacks).filter((c) => c.whileDown).length} while no worker was up), ${approvals.flatMap((r) => r.decisions).length} decisions (${approvals.flatMap((r) => r.decisions).filter((d) => d.whileDown).length} while no worker was up; ${approvals.reduce((n, r) => n + r.askedAgain, 0)} approvals asked again)`,
      );
      const errors = workers.logLines("[error]");
      if (errors.length) console.log(`soak: worker errors (${errors.length}):\n${errors.slice(0, 20).join("\n")}`);

      // ---- no worker died on its own; workers were killed, and called back while none was up (how many kills
      // hit a worker mid-call depends on the machine's speed: the summary says)
      expect(
        workers
          .diedOnTheirOwn()
          .map((w) => `slot ${w.slot} ${w.owner}: exit ${w.exit?.code} ${w.exit?.signal}\n${w.stderr}`),
      ).toEqual([]);
      expect(kills.length).toBeGreaterThan(0);
      expect(deploys.flatMap((r) => r.callbacks).filter((c) => c.whileDown).length).toBeGreaterThan(0);

      // ---- every run ended, and completed: nothing in this world fails a run
      for (const run of runs) {
        const record = await t.runtime.getRun(run.runId!);
        expect(record.status, `seed ${seed}: ${run.key} ${run.runId} ended ${record.status}: ${record.error}`).toBe(
          "COMPLETED",
        );
        expect((await t.runtime.recoveryView(run.runId!)).mayHaveHappened, `${run.key} ${run.runId}`).toEqual([]);
        for (const intent of await t.store.listIntents(run.runId!))
          expect(["SUCCEEDED", "RESOLVED"], `${run.key} ${intent.tool} ${intent.id}`).toContain(intent.status);
      }

      // ---- the ledger: each effect at most once per operation, and exactly what each run was meant to do
      const ours = new Map(runs.map((r) => [r.runId!, r]));
      const effects = world.ledger.filter((e) => e.runId && ours.has(e.runId));
      const perOperation = new Map<string, number>();
      for (const e of effects) {
        const key = `${e.system}:${e.operationId ?? `run:${e.runId}`}`; // a deploy has no key: one per run is the most there may be
        perOperation.set(key, (perOperation.get(key) ?? 0) + 1);
      }
      expect(
        [...perOperation].filter(([, n]) => n > 1),
        `seed ${seed}: effects applied more than once`,
      ).toEqual([]);
      for (const run of runs) {
        const mine = (system: string) => effects.filter((e) => e.system === system && e.runId === run.runId).length;
        const refunds = run.kind === "refund" || (run.kind === "approval" && run.decision === "approve") ? 1 : 0;
        expect(
          { payments: mine("payments"), mail: mine("mail"), deploys: mine("deploys") },
          `seed ${seed}: ${run.key} ${run.runId}`,
        ).toEqual({ payments: refunds, mail: refunds, deploys: run.kind === "deploy" ? 1 : 0 });
      }

      // ---- callbacks: three deliveries per deploy run, one signal, consumed once
      for (const run of deploys) {
        expect(run.callbacks.map((c) => c.duplicate).sort(), `${run.key} ${run.runId}`).toEqual([false, true, true]);
        const signals = await t.store.listSignals(run.runId!);
        expect(
          signals.map((s) => s.consumedAt !== null),
          `${run.key} ${run.runId}`,
        ).toEqual([true]);
        const events = (await t.store.listEvents(run.runId!, { limit: 10_000 })).map((e) => e.type);
        expect(
          events.filter((e) => e === "signal.consumed"),
          `${run.key} ${run.runId}`,
        ).toHaveLength(1);
        expect(
          events.filter((e) => e === "signal.duplicate"),
          `${run.key} ${run.runId}`,
        ).toHaveLength(2);
      }

      // ---- decisions: three deliveries per approval, one wins, the others are told it was decided
      for (const run of approvals) {
        expect(
          run.decisions.filter((d) => d.ok),
          `${run.key} ${run.runId}`,
        ).toHaveLength(1);
        for (const lost of run.decisions.filter((d) => !d.ok))
          expect(["PACKET_ALREADY_DECIDED", "CONFLICT"]).toContain(lost.code);
        // One packet, unless its evidence could not be re-read in time (STALE: not used) and it was asked again.
        const packets = (await t.store.findPackets({ runId: run.runId!, kind: "APPROVAL" })).filter(
          (p) => p.status !== "STALE",
        );
        expect(
          packets.map((p) => p.status),
          `${run.key} ${run.runId}`,
        ).toEqual([run.decision === "approve" ? "APPROVED" : "REJECTED"]);
        if (run.decision === "approve")
          expect(packets[0].usedAt, `${run.key} ${run.runId}: the approval was used`).not.toBeNull();
      }

      // ---- a person was asked only where a call's outcome was truly unknown: the unsafe deploy, or a call
      // the world did not answer in time — never a refund or a mail merely because its worker died
      expect([...unexpectedUnknowns], `seed ${seed}`).toEqual([]);
      for (const run of runs) {
        const asked = await t.store.findPackets({ runId: run.runId!, kind: "UNKNOWN_OUTCOME" });
        expect(
          asked.filter((p) => p.tool !== "deploy.migrate" && !unansweredUnknowns.has(p.id)).map((p) => p.tool),
          `${run.key} ${run.runId}`,
        ).toEqual([]);
        expect(
          asked.map((p) => p.id).sort(),
          `${run.key} ${run.runId}: every unknown outcome was settled by the soak`,
        ).toEqual(run.settled.map((s) => s.packetId).sort());
      }
    },
    SOAK_MS + SETTLE_MS + 30_000,
  );
});
