import { percentile, stepsPerSec, type PeerFigures } from "./workload";

// The one table, the goals (bench/README.md) computed from this run's figures, and the JSON summary.

export type SystemResult = { name: string; figures: PeerFigures | null; error?: string; info?: boolean };
export type Floor = { commitsPerSec: number[] }; // measured at the start and at the end of the run

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "–");
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n");
}

export function buildReport(systems: SystemResult[], floor: Floor, concurrentRuns: number) {
  const [tether, dbos, langgraph] = systems; // Tether, DBOS, LangGraph (sync), then information rows
  const seq = (s: SystemResult) => stepsPerSec(s.figures?.sequential);
  const conc = (s: SystemResult) => stepsPerSec(s.figures?.concurrent);
  const floorBest = Math.max(...floor.commitsPerSec);

  const rows = systems.map((s) => [
    s.name,
    s.figures ? f(seq(s)) : `failed`,
    s.figures ? f(conc(s)) : `failed`,
    s === tether ? "1.00" : f(ratio(seq(tether), seq(s)), 2),
    s === tether ? "1.00" : f(ratio(conc(tether), conc(s)), 2),
  ]);
  rows.push([
    "commit floor, 1 client, commits/s (start / end)",
    floor.commitsPerSec.map((c) => f(c)).join(" / "), "", f(ratio(seq(tether), floorBest), 2), f(ratio(conc(tether), floorBest), 2),
  ]);
  const lines = [table(["system", "sequential steps/s", `concurrent (${concurrentRuns}×10) steps/s`, "Tether ÷ it, seq", "Tether ÷ it, conc"], rows)];

  // `above`: strictly more than the target (the floor), otherwise at least the target.
  const goal = (text: string, value: number, target: number, unmet?: string, above = false) => {
    const met = Number.isFinite(value) && (above ? value > target : value >= target);
    lines.push(`  ${met ? "✔" : "✘"} ${text}: ${Number.isFinite(value) ? `${f(value, 2)}×` : `not measured (${unmet ?? "?"})`}`);
    return { goal: text, target, value: Number.isFinite(value) ? Number(value.toFixed(3)) : null, met };
  };
  lines.push("", "Goals (bench/README.md), from this run's figures:");
  const goals = [
    goal("sequential: Tether ≥ 2× DBOS", ratio(seq(tether), seq(dbos)), 2, dbos.error ?? tether.error),
    goal("sequential: Tether ≥ 4× LangGraph (sync)", ratio(seq(tether), seq(langgraph)), 4, langgraph.error ?? tether.error),
    goal(`concurrent (${concurrentRuns}×10): Tether ≥ 2× DBOS`, ratio(conc(tether), conc(dbos)), 2, dbos.error ?? tether.error),
    goal(`concurrent (${concurrentRuns}×10): Tether above the one-client commit floor (best of ${floor.commitsPerSec.length})`, ratio(conc(tether), floorBest), 1, tether.error, true),
  ];

  const gate = (s: SystemResult) => (s.figures?.gateMs?.length ? { p50: percentile(s.figures.gateMs, 50), p90: percentile(s.figures.gateMs, 90), n: s.figures.gateMs.length } : null);
  const tg = gate(tether);
  const lg = gate(langgraph);
  lines.push("", "Human-in-the-loop round trip (ms; no goal set, shown side by side):");
  lines.push(`  Tether gate (decision → approved step committed → run complete): ${tg ? `p50 ${f(tg.p50, 1)}, p90 ${f(tg.p90, 1)} over ${tg.n}` : `not measured${tether.error ? ` (${tether.error})` : ""}`}`);
  lines.push(`  LangGraph interrupt → resume (Command → next node checkpointed → graph end): ${lg ? `p50 ${f(lg.p50, 1)}, p90 ${f(lg.p90, 1)} over ${lg.n}` : `not measured${langgraph.error ? ` (${langgraph.error})` : ""}`}`);
  if (tg && lg) lines.push(`  LangGraph ÷ Tether (p50): ${f(ratio(lg.p50, tg.p50), 2)}×`);

  const json = {
    systems: systems.map((s) => ({
      name: s.name, error: s.error ?? null, information: s.info ?? false,
      sequentialStepsPerSec: s.figures ? Math.round(seq(s)) : null, concurrentStepsPerSec: s.figures ? Math.round(conc(s)) : null,
      sequential: s.figures?.sequential ?? null, concurrent: s.figures?.concurrent ?? null, gate: gate(s), notes: s.figures?.notes ?? [],
    })),
    commitFloorPerSec: floor.commitsPerSec.map(Math.round),
    goals,
  };
  return { text: lines.join("\n"), json };
}
