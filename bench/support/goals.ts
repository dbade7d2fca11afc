// The goals the bench reports (the list), each judged from this run's figures: never a
// constant, never an estimate. A missed goal is printed as missed, with the figure.

export type Goal = {
  /** Short id (io, gate, latency, long-run, bytes, scaling, memory). */
  id: string;
  db: string;
  /** What is promised, with its threshold. */
  target: string;
  /** What this run measured. */
  figure: string;
  ok: boolean;
};

export function printGoals(goals: Goal[]) {
  console.log("\nGoals (judged from this run's figures)");
  if (goals.length === 0) {
    console.log("  (no goal measured in this run: see BENCH_ONLY)");
    return;
  }
  const width = Math.max(...goals.map((g) => g.db.length));
  for (const g of goals) console.log(`  ${g.ok ? "✔" : "✘"} ${g.db.padEnd(width)}  ${g.target}: ${g.figure}`);
}
