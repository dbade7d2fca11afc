// The open gate's round trip (docs/gates-api.md): a caller outside Tether requests a gate
// (requestGate: a run of the built-in agent external-gate), the started worker parks it on its packet,
// the caller long-polls (waitForGate, as GET /api/gates/:id?wait=30 does), a person approves, and the
// waiting client is woken with the decision. Timed from runtime.decidePacket(...) returning (the decision
// is committed) to waitForGate resolving with "approved" (the client has its answer), and, separately,
// requestGate called → its packet open (the worker asked the person). In process: no HTTP in the figure.
import { requestGate, waitForGate } from "../../lib/commands/request-gate";
import { ROUND_TIMEOUT_MS, sleep, withStartedWorker } from "../support/commits";
import { printLatencies, stats, type LatencyStats } from "../support/report";
import type { Bench } from "../support/workload";
import { approveTimed, gateRounds } from "./gate-round-trip";

export type OpenGateResult = {
  db: string;
  rounds: number;
  /** decidePacket returned → the waiting client has the decision. */
  woken: LatencyStats;
  /** decidePacket called → the waiting client has the decision. */
  fromCall: LatencyStats;
  /** requestGate called → the gate's packet committed by the worker. */
  opened: LatencyStats;
  /** Rounds whose client was not answered "approved" within the timeout. */
  missed: number;
};

let keySeq = 0;

export async function openGateRoundTrip(db: string, bench: Bench): Promise<OpenGateResult> {
  const { rounds, warm, gapMs } = gateRounds();
  const { runtime } = bench;
  const woken: number[] = [],
    fromCall: number[] = [],
    opened: number[] = [];
  let missed = 0;
  await withStartedWorker(bench, async (log) => {
    for (let r = -warm; r < rounds; r++) {
      const t00 = performance.now();
      const gate = await requestGate(
        { db: bench.db, runtime },
        {
          requestedBy: "bench-caller",
          input: {
            action: { tool: "payments.refund", args: { orderId: `ord_${r}`, amount: 4200 } },
            description: "bench",
            idempotencyKey: `bench-${process.pid}-${keySeq++}`,
          },
        },
      );
      const parked = await log.until(
        gate.gateId,
        (c) => c.status === "WAITING_APPROVAL" && c.packetId !== null,
        ROUND_TIMEOUT_MS,
      );
      if (!parked?.packetId)
        throw new Error(
          `gate ${gate.gateId} did not open its packet within ${ROUND_TIMEOUT_MS} ms (${(await runtime.getRun(gate.gateId)).status})`,
        );
      const t01 = parked.at;
      const waiting = waitForGate({ runtime }, gate.gateId, { waitSeconds: ROUND_TIMEOUT_MS / 1000 }).then((view) => ({
        view,
        at: performance.now(),
      }));
      await sleep(gapMs); // the client is parked in its long-poll, the worker idle
      const { t0, t1 } = await approveTimed(runtime, parked.packetId);
      const answer = await waiting;
      if (r < 0) continue;
      if (answer.view.status !== "approved") {
        missed++;
        continue;
      }
      opened.push(t01 - t00);
      woken.push(answer.at - t1);
      fromCall.push(answer.at - t0);
    }
  });
  return { db, rounds, woken: stats(woken), fromCall: stats(fromCall), opened: stats(opened), missed };
}

export function printOpenGate(results: OpenGateResult[]) {
  if (results.length === 0) return;
  const title = `Open gate round trip (requestGate → packet → a client long-polling waitForGate → decidePacket → the client woken; ${results[0].rounds} rounds, started worker)`;
  printLatencies(title, "interval", results, (r) => [
    ["decide returned → waiting client woken", r.woken],
    ["decide called → waiting client woken", r.fromCall],
    ["requestGate called → packet open", r.opened],
  ]);
  for (const r of results)
    if (r.missed)
      console.log(
        `  ${r.db}: ${r.missed} rounds MISSED (the client was not answered "approved" within ${ROUND_TIMEOUT_MS / 1000} s)`,
      );
}
