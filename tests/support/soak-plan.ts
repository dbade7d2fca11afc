import type { SoakRandom } from "./soak-random";

// The soak's schedule, drawn up front from the seed: when each run starts, when each approval is
// decided (three deliveries of the same decision), when each deploy callback arrives (three deliveries
// of the same callback), when a worker is killed (and whether the one driving a call in flight is
// chosen), and one blackout with every worker down.
// Times are milliseconds from the soak's start.

export type SoakKind = "refund" | "approval" | "deploy";

export type PlannedRun = {
  key: string;
  kind: SoakKind;
  startAt: number;
  /** approval runs: the reviewer's answer, delivered at each of `decideAt`. */
  decision?: "approve" | "reject";
  decideAt?: number[];
  /** deploy runs: the same deploy.finished callback, delivered at each of `callbackAt`. */
  callbackAt?: number[];
};

export type SoakPlan = {
  soakMs: number;
  runs: PlannedRun[];
  /** `targeted`: kill a worker driving a call in flight, if there is one (else any worker). */
  kills: Array<{ at: number; targeted: boolean }>;
  blackout: { at: number; ms: number };
};

export type SoakPlanOptions = {
  soakMs: number;
  runs: Record<SoakKind, number>;
  killGapMs: [number, number];
  blackoutMs: [number, number];
};

export function planSoak(random: SoakRandom, opts: SoakPlanOptions): SoakPlan {
  const { soakMs } = opts;
  const at = (from: number, to: number) => random.int(Math.round(from), Math.round(to));
  const blackout = { at: at(0.45 * soakMs, 0.6 * soakMs), ms: at(...opts.blackoutMs) };
  const duringBlackout = () => at(blackout.at + 100, blackout.at + blackout.ms - 200);
  const runs: PlannedRun[] = [];

  for (let i = 0; i < opts.runs.refund; i++)
    runs.push({ key: `refund-${i}`, kind: "refund", startAt: at(0, 0.8 * soakMs) });

  for (let i = 0; i < opts.runs.approval; i++) {
    const startAt = at(0, 0.3 * soakMs);
    // The first two are first decided while every worker is down.
    const first = i < 2 ? duringBlackout() : at(startAt + 1_500, 0.85 * soakMs);
    const second = random.chance(0.3) ? first : first + at(50, 1_500); // sometimes two at the same moment
    runs.push({
      key: `approval-${i}`,
      kind: "approval",
      startAt,
      decision: random.chance(0.25) ? "reject" : "approve",
      decideAt: [first, second, first + at(0, 2_500)],
    });
  }

  for (let i = 0; i < opts.runs.deploy; i++) {
    const startAt = at(0, 0.4 * soakMs);
    const first = at(startAt, 0.9 * soakMs);
    // One delivery lands while every worker is down; sometimes two arrive at the same moment.
    const callbackAt = [first, duringBlackout(), random.chance(0.3) ? first : at(startAt, 0.9 * soakMs)].sort(
      (a, b) => a - b,
    );
    runs.push({ key: `deploy-${i}`, kind: "deploy", startAt, callbackAt });
  }

  const kills: SoakPlan["kills"] = [];
  for (let t = at(...opts.killGapMs); t < soakMs; t += at(...opts.killGapMs)) {
    const nearBlackout = t > blackout.at - 500 && t < blackout.at + blackout.ms + 1_500;
    if (!nearBlackout) kills.push({ at: t, targeted: random.chance(0.6) });
  }
  return { soakMs, runs, kills, blackout };
}
