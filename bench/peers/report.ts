import { percentile, stepsPerSec, type PeerFigures, type Timed } from "./workload";

// The tables, the goals (bench/README.md) judged from this run's rounds, and the JSON summary. Each system
// is measured once per round; a ratio is computed within a round (the same minutes of the machine) and
// reported as the median over the rounds with its range. A goal is met only when every round meets it.

/** `id`: tether, tether-each-step, dbos, langgraph-sync or langgraph-async. */
export type SystemResult = { id: string; name: string; figures: PeerFigures | null; error?: string; info?: boolean };
export type Round = SystemResult[];
export type Floor = { commitsPerSec: number[] }; // measured at the start and at the end of the run

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "–");
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
const median = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return finite.length ? percentile(finite, 50) : NaN;
};
/** "median [min–max]" of figures, one per round. */
const spread = (values: number[], d: number, unit = "") => {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return "–";
  return finite.length === 1
    ? `${f(finite[0], d)}${unit}`
    : `${f(median(finite), d)}${unit} [${f(Math.min(...finite), d)}–${f(Math.max(...finite), d)}]`;
};

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n");
}

type Mode = "sequential" | "concurrent";
const timedOf = (s: SystemResult | undefined, mode: Mode): Timed | undefined => s?.figures?.[mode];
const nodeCpu = (t: Timed | undefined) => (t ? t.nodeCpuMs / t.steps : NaN);
const backendCpu = (t: Timed | undefined) => (t && t.backendCpuMs !== null ? t.backendCpuMs / t.steps : NaN);

export function buildReport(rounds: Round[], floor: Floor, concurrentRuns: number) {
  const ids = [...new Set(rounds.flat().map((s) => s.id))];
  const of = (id: string) => rounds.map((round) => round.find((s) => s.id === id));
  const nameOf = (id: string) => rounds.flat().find((s) => s.id === id)!.name;
  const perRound = (id: string, fn: (s: SystemResult | undefined) => number) => of(id).map(fn);
  const errorOf = (id: string) => rounds.flat().find((s) => s.id === id && s.error)?.error;
  /** Tether's figure ÷ the peer's, within each round the peer ran in. */
  const ratios = (peer: string, mode: Mode) =>
    rounds.flatMap((round) => {
      const p = round.find((s) => s.id === peer);
      const t = round.find((s) => s.id === "tether");
      return p ? [ratio(stepsPerSec(timedOf(t, mode)), stepsPerSec(timedOf(p, mode)))] : [];
    });
  const floorBest = Math.max(...floor.commitsPerSec);

  const lines: string[] = [];
  lines.push(
    `Throughput, steps/s (median [min–max] of ${rounds.length} round${rounds.length === 1 ? "" : "s"}; ratios taken within each round)`,
  );
  lines.push(
    table(
      [
        "system",
        "sequential steps/s",
        `concurrent (${concurrentRuns}×10) steps/s`,
        "Tether ÷ it, seq",
        "Tether ÷ it, conc",
      ],
      [
        ...ids.map((id) => [
          nameOf(id),
          spread(
            perRound(id, (s) => stepsPerSec(timedOf(s, "sequential"))),
            0,
          ),
          spread(
            perRound(id, (s) => stepsPerSec(timedOf(s, "concurrent"))),
            0,
          ),
          id === "tether" ? "1.00" : spread(ratios(id, "sequential"), 2, "×"),
          id === "tether" ? "1.00" : spread(ratios(id, "concurrent"), 2, "×"),
        ]),
        [
          "commit floor, 1 client, commits/s (start / end)",
          floor.commitsPerSec.map((c) => f(c)).join(" / "),
          "",
          spread(
            perRound("tether", (s) => ratio(stepsPerSec(timedOf(s, "sequential")), floorBest)),
            2,
            "×",
          ),
          spread(
            perRound("tether", (s) => ratio(stepsPerSec(timedOf(s, "concurrent")), floorBest)),
            2,
            "×",
          ),
        ],
      ],
    ),
  );

  lines.push(
    "",
    "CPU per step, ms (median [min–max] over the rounds): Node = the system's process (process.cpuUsage); Postgres = its database's backends (/proc, 10 ms ticks)",
  );
  lines.push(
    table(
      ["system", "Node, seq", "Node, conc", "Postgres, seq", "Postgres, conc", "total, seq", "total, conc"],
      ids.map((id) => {
        const cell = (fn: (t: Timed | undefined) => number, mode: Mode) =>
          spread(
            perRound(id, (s) => fn(timedOf(s, mode))),
            3,
          );
        const total = (t: Timed | undefined) => nodeCpu(t) + (Number.isFinite(backendCpu(t)) ? backendCpu(t) : 0);
        return [
          nameOf(id),
          cell(nodeCpu, "sequential"),
          cell(nodeCpu, "concurrent"),
          cell(backendCpu, "sequential"),
          cell(backendCpu, "concurrent"),
          cell(total, "sequential"),
          cell(total, "concurrent"),
        ];
      }),
    ),
  );

  // `above`: strictly more than the target (the floor), otherwise at least the target. Met when every round meets it.
  const goal = (
    text: string,
    values: number[],
    target: number,
    unit: string,
    unmet: string | undefined,
    compare: (v: number, target: number) => boolean,
  ) => {
    const measured = values.length > 0 && values.every(Number.isFinite);
    const met = measured && values.every((v) => compare(v, target));
    const shown = measured
      ? `${spread(values, unit === "×" ? 2 : 3, unit)}${values.length > 1 ? `, each round: ${values.map((v) => f(v, unit === "×" ? 2 : 3)).join(", ")}` : ""}`
      : `not measured (${unmet ?? "?"})`;
    lines.push(`  ${met ? "✔" : "✘"} ${text}: ${shown}`);
    return {
      goal: text,
      target,
      values: values.map((v) => (Number.isFinite(v) ? Number(v.toFixed(3)) : null)),
      median: measured ? Number(median(values).toFixed(3)) : null,
      met,
    };
  };
  const atLeast = (v: number, t: number) => v >= t;
  const cpuRatio = (mode: Mode) =>
    rounds.map((round) =>
      ratio(
        nodeCpu(
          timedOf(
            round.find((s) => s.id === "tether"),
            mode,
          ),
        ),
        nodeCpu(
          timedOf(
            round.find((s) => s.id === "dbos"),
            mode,
          ),
        ),
      ),
    );
  lines.push("", `Goals (bench/README.md), met only when every one of the ${rounds.length} rounds meets them:`);
  const goals = [
    goal(
      "sequential: Tether ≥ 2× DBOS",
      ratios("dbos", "sequential"),
      2,
      "×",
      errorOf("dbos") ?? errorOf("tether"),
      atLeast,
    ),
    goal(
      "sequential: Tether ≥ 4× LangGraph (sync)",
      ratios("langgraph-sync", "sequential"),
      4,
      "×",
      errorOf("langgraph-sync") ?? errorOf("tether"),
      atLeast,
    ),
    goal(
      `concurrent (${concurrentRuns}×10): Tether ≥ 2× DBOS`,
      ratios("dbos", "concurrent"),
      2,
      "×",
      errorOf("dbos") ?? errorOf("tether"),
      atLeast,
    ),
    goal(
      `concurrent (${concurrentRuns}×10): Tether ≥ 4× LangGraph (sync)`,
      ratios("langgraph-sync", "concurrent"),
      4,
      "×",
      errorOf("langgraph-sync") ?? errorOf("tether"),
      atLeast,
    ),
    goal(
      `concurrent (${concurrentRuns}×10): Tether above the one-client commit floor (best of ${floor.commitsPerSec.length})`,
      perRound("tether", (s) => ratio(stepsPerSec(timedOf(s, "concurrent")), floorBest)),
      1,
      "×",
      errorOf("tether"),
      (v, t) => v > t,
    ),
    goal(
      "sequential: Tether's Node CPU per step ≤ DBOS's (Tether ÷ DBOS)",
      cpuRatio("sequential"),
      1,
      "×",
      errorOf("dbos") ?? errorOf("tether"),
      (v, t) => v <= t,
    ),
    goal(
      `concurrent (${concurrentRuns}×10): Tether's Node CPU per step ≤ DBOS's (Tether ÷ DBOS)`,
      cpuRatio("concurrent"),
      1,
      "×",
      errorOf("dbos") ?? errorOf("tether"),
      (v, t) => v <= t,
    ),
  ];

  const gateSamples = (id: string) => of(id).flatMap((s) => s?.figures?.gateMs ?? []);
  const gate = (id: string) => {
    const ms = gateSamples(id);
    return ms.length ? { p50: percentile(ms, 50), p90: percentile(ms, 90), n: ms.length } : null;
  };
  const tg = gate("tether");
  const lg = gate("langgraph-sync");
  lines.push("", "Human-in-the-loop round trip (ms, every round's samples together; no goal set, shown side by side):");
  lines.push(
    `  Tether gate (decision → approved step committed → run complete): ${tg ? `p50 ${f(tg.p50, 1)}, p90 ${f(tg.p90, 1)} over ${tg.n}` : `not measured${errorOf("tether") ? ` (${errorOf("tether")})` : ""}`}`,
  );
  lines.push(
    `  LangGraph interrupt → resume (Command → next node checkpointed → graph end): ${lg ? `p50 ${f(lg.p50, 1)}, p90 ${f(lg.p90, 1)} over ${lg.n}` : `not measured${errorOf("langgraph-sync") ? ` (${errorOf("langgraph-sync")})` : ""}`}`,
  );
  if (tg && lg) lines.push(`  LangGraph ÷ Tether (p50): ${f(ratio(lg.p50, tg.p50), 2)}×`);

  const json = {
    rounds: rounds.map((round) =>
      round.map((s) => ({
        id: s.id,
        name: s.name,
        error: s.error ?? null,
        information: s.info ?? false,
        sequentialStepsPerSec: s.figures ? Math.round(stepsPerSec(s.figures.sequential)) : null,
        concurrentStepsPerSec: s.figures ? Math.round(stepsPerSec(s.figures.concurrent)) : null,
        nodeCpuMsPerStep: s.figures
          ? { sequential: round3(nodeCpu(s.figures.sequential)), concurrent: round3(nodeCpu(s.figures.concurrent)) }
          : null,
        backendCpuMsPerStep: s.figures
          ? {
              sequential: round3(backendCpu(s.figures.sequential)),
              concurrent: round3(backendCpu(s.figures.concurrent)),
            }
          : null,
        sequential: s.figures?.sequential ?? null,
        concurrent: s.figures?.concurrent ?? null,
        notes: s.figures?.notes ?? [],
      })),
    ),
    gate: { tether: tg, langgraph: lg },
    commitFloorPerSec: floor.commitsPerSec.map(Math.round),
    goals,
  };
  return { text: lines.join("\n"), json };
}

const round3 = (n: number) => (Number.isFinite(n) ? Number(n.toFixed(3)) : null);
