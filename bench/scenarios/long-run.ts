// A step's cost must not grow with the run's length (bench/README.md): the "pure, 200-step run" row
// against the "pure" row (BENCH_STEPS_PER_RUN = 20-step runs), both sequential, from the main table.
// Compared: time per step (wall clock of the drain / steps, run overhead included), the median step
// window, and the bytes sent to the database per step (bound parameters, counted at the driver).
// Goals: time per step within 20 %; bytes per step flat (also within 20 %).
import type { Goal } from "../support/goals";
import { fmt, printTable, type Row } from "../support/report";
import { LONG_RUN_SCENARIO } from "./throughput";

export type LongRunComparison = {
  db: string;
  short: Row;
  long: Row;
  msRatio: number;
  p50Ratio: number;
  bytesRatio: number;
};

export function compareLongRun(rows: Row[]): LongRunComparison[] {
  const out: LongRunComparison[] = [];
  for (const db of [...new Set(rows.map((r) => r.db))]) {
    const short = rows.find((r) => r.db === db && r.scenario === "pure");
    const long = rows.find((r) => r.db === db && r.scenario === LONG_RUN_SCENARIO);
    if (!short || !long) continue;
    out.push({
      db,
      short,
      long,
      msRatio: short.stepsPerSec / long.stepsPerSec,
      p50Ratio: long.p50Ms / short.p50Ms,
      bytesRatio: long.perStep.bytesOut / short.perStep.bytesOut,
    });
  }
  return out;
}

export function printLongRun(list: LongRunComparison[]) {
  if (list.length === 0) return;
  console.log(
    `\nRun length (sequential pure steps: ${list[0].short.steps / list[0].short.runs}-step runs vs one ${list[0].long.steps}-step run)`,
  );
  printTable(
    ["db", "run length", "ms / step", "p50 step ms", "KB sent / step"],
    list.flatMap((c) => [
      [
        c.db,
        `${c.short.steps / c.short.runs} steps`,
        fmt(1000 / c.short.stepsPerSec),
        fmt(c.short.p50Ms),
        fmt(c.short.perStep.bytesOut / 1024, 1),
      ],
      [
        c.db,
        `${c.long.steps / c.long.runs} steps`,
        fmt(1000 / c.long.stepsPerSec),
        fmt(c.long.p50Ms),
        fmt(c.long.perStep.bytesOut / 1024, 1),
      ],
      [c.db, "ratio long / short", fmt(c.msRatio), fmt(c.p50Ratio), fmt(c.bytesRatio)],
    ]),
  );
}

export const longRunGoals = (list: LongRunComparison[]): Goal[] =>
  list.flatMap((c) => [
    {
      id: "long-run",
      db: c.db,
      ok: c.msRatio <= 1.2,
      target: `a ${c.long.steps / c.long.runs}-step run's per-step cost within 20 % of a ${c.short.steps / c.short.runs}-step run's`,
      figure: `${fmt(1000 / c.long.stepsPerSec)} vs ${fmt(1000 / c.short.stepsPerSec)} ms/step = ${fmt(c.msRatio)}× (p50 step ${fmt(c.p50Ratio)}×)`,
    },
    {
      id: "bytes",
      db: c.db,
      ok: c.bytesRatio <= 1.2,
      target: "bytes written per step flat in run length (within 20 %)",
      figure: `${fmt(c.long.perStep.bytesOut / 1024, 1)} vs ${fmt(c.short.perStep.bytesOut / 1024, 1)} KB/step = ${fmt(c.bytesRatio)}×`,
    },
  ]);
