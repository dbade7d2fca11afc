import { DIMENSIONS, type Dimension } from "./spec";
import type { EvalRunOutcome } from "./harness";
import type { TrialResult } from "./types";

// What the CLI prints: a progress bar while trials run (redrawn in place on a terminal, a line every
// 10% otherwise), then a table per case, the failed trials with the checks that failed, and the
// aggregate scores against their thresholds.

const LABELS: Record<Dimension, string> = {
  completion: "complete",
  toolSelection: "tools",
  stateAccuracy: "state",
  recovery: "recovery",
  approvalCompliance: "approvals",
  cost: "cost",
  latency: "latency",
};

export function createProgress(stream: NodeJS.WriteStream = process.stderr) {
  const tty = Boolean(stream.isTTY);
  let lastDecile = -1;
  const started = Date.now();
  return {
    update({ done, total, label, failed }: { done: number; total: number; label: string; failed: number }) {
      const secs = ((Date.now() - started) / 1000).toFixed(0);
      if (tty) {
        const width = 28;
        const filled = Math.round((done / Math.max(total, 1)) * width);
        const line = `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${done}/${total} ${failed ? `✘${failed} ` : ""}${secs}s  ${label}`;
        stream.write(`\r\x1b[2K${line.slice(0, (stream.columns ?? 120) - 1)}`);
      } else {
        const decile = Math.floor((done / Math.max(total, 1)) * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          stream.write(`eval: ${done}/${total} trials (${failed} failed, ${secs} s)\n`);
        }
      }
    },
    done() {
      if (tty) stream.write("\r\x1b[2K");
    },
  };
}

const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? "  —  " : `${(v * 100).toFixed(0).padStart(4)}%`;

function pad(text: string, width: number) {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

export function formatReport(outcome: EvalRunOutcome): string {
  const lines: string[] = [];
  const byCase = new Map<string, TrialResult[]>();
  for (const r of outcome.results) byCase.set(r.caseId, [...(byCase.get(r.caseId) ?? []), r]);
  const header = `${pad("case", 40)} ${pad("agent", 14)} trials pass ${DIMENSIONS.map((d) => LABELS[d].padStart(9)).join("")}  machine`;
  lines.push(header, "─".repeat(header.length));
  for (const [caseId, results] of byCase) {
    const mean = (d: Dimension) => {
      const v = results.map((r) => r.scores[d]).filter((x): x is number => x !== null);
      return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
    };
    const passed = results.filter((r) => r.passed).length;
    const machine = Math.round(results.reduce((a, r) => a + r.machineMs, 0) / results.length);
    lines.push(
      `${pad(caseId, 40)} ${pad(results[0].agent, 14)} ${String(results.length).padStart(6)} ${String(passed).padStart(4)} ${DIMENSIONS.map((d) => pct(mean(d)).padStart(9)).join("")}  ${String(machine).padStart(5)} ms`,
    );
  }
  const failed = outcome.results.filter((r) => !r.passed);
  if (failed.length > 0) {
    lines.push("", `Failed trials (${failed.length}):`);
    for (const r of failed.slice(0, 40)) {
      lines.push(`  ✘ ${r.caseId} · ${r.fault} (run ${r.runId ?? "-"}, ${r.runStatus ?? "no run"})`);
      for (const c of r.checks.filter((x) => !x.ok).slice(0, 4))
        lines.push(`      ${LABELS[c.dimension]}: ${c.name}${c.detail ? ` — ${c.detail}` : ""}`);
    }
    if (failed.length > 40) lines.push(`  … and ${failed.length - 40} more (see the JSON report)`);
  }
  const f = outcome.scores.figures;
  lines.push("", "Scores (all trials):");
  for (const d of DIMENSIONS) {
    const v = outcome.scores[d];
    const ok = v === null || v >= outcome.thresholds[d];
    lines.push(
      `  ${ok ? "✔" : "✘"} ${LABELS[d].padEnd(10)} ${pct(v)}   threshold ${(outcome.thresholds[d] * 100).toFixed(0)}%`,
    );
  }
  lines.push(
    "",
    `${f.cases} cases, ${f.trials} trials, ${f.passed} passed · tokens ${f.tokens} · cost $${f.costUsd.toFixed(4)} · machine time ${(f.machineMs / 1000).toFixed(1)} s (p50 ${f.p50MachineMs} ms, p95 ${f.p95MachineMs} ms) · waiting for people ${(f.humanWaitMs / 1000).toFixed(1)} s`,
    `policy ${outcome.policy} · code ${outcome.codeVersion.slice(0, 12)} · ${(outcome.durationMs / 1000).toFixed(1)} s`,
    outcome.status === "PASSED" ? "Eval PASSED" : `Eval FAILED: ${outcome.failures.join("; ")}`,
  );
  return lines.join("\n");
}
