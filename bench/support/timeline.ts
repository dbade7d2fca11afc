import { fmt, percentile } from "./report";
import type { StoreCallListener } from "./workload";

// Where a latency goes: the store calls made between two moments of a round (e.g. a decision
// returned → the next step committed), each by its start (offset from the round's start) and its
// duration, then the median over rounds. The n-th call of a name is its own entry ("claimRuns#2").
// What is not in a store call (waking up, the policy, the tool, JSON, scheduling) is the gaps.

type Call = { name: string; start: number; end: number };
export type TimelineEntry = { key: string; rounds: number; startP50: number; msP50: number };

export class CallTimeline {
  private calls: Call[] = [];
  private recording = false;
  private rounds: Array<Array<{ key: string; start: number; ms: number }>> = [];
  private readonly off: () => void;

  constructor(onStoreCall: (listener: StoreCallListener) => () => void) {
    this.off = onStoreCall((name, _args, start, end) => {
      if (this.recording) this.calls.push({ name, start, end });
    });
  }

  begin() {
    this.calls = [];
    this.recording = true;
  }

  /** Keep the calls that started in [from, to] as one round, offsets from `zero` (negative: before it). */
  end(from: number, to: number, zero = from) {
    this.recording = false;
    const seen = new Map<string, number>();
    const round = this.calls
      .filter((c) => c.start >= from && c.start <= to)
      .sort((a, b) => a.start - b.start)
      .map((c) => {
        const n = (seen.get(c.name) ?? 0) + 1;
        seen.set(c.name, n);
        return { key: n === 1 ? c.name : `${c.name}#${n}`, start: c.start - zero, ms: c.end - c.start };
      });
    this.rounds.push(round);
    this.calls = [];
  }

  summary(): TimelineEntry[] {
    const byKey = new Map<string, { starts: number[]; ms: number[] }>();
    for (const round of this.rounds) {
      for (const c of round) {
        const e = byKey.get(c.key) ?? { starts: [], ms: [] };
        e.starts.push(c.start);
        e.ms.push(c.ms);
        byKey.set(c.key, e);
      }
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    return [...byKey.entries()]
      .map(([key, e]) => ({
        key,
        rounds: e.starts.length,
        startP50: percentile(sorted(e.starts), 50),
        msP50: percentile(sorted(e.ms), 50),
      }))
      .sort((a, b) => a.startP50 - b.startP50);
  }

  get count() {
    return this.rounds.length;
  }

  close() {
    this.off();
  }
}

/** "+0.3 claimRuns 1.1 ms · +1.5 getPacket 2.0 ms …" (median start offset, median duration), wrapped. */
export function formatTimeline(entries: TimelineEntry[], rounds: number, indent = "    "): string {
  const items = entries.map(
    (e) =>
      `${e.startP50 < 0 ? "" : "+"}${e.startP50.toFixed(1)} ${e.key} ${e.msP50.toFixed(1)} ms${e.rounds < rounds ? ` (${e.rounds}/${rounds})` : ""}`,
  );
  const lines: string[] = [];
  let line = "";
  for (const item of items) {
    if (line && line.length + item.length > 110) {
      lines.push(line);
      line = "";
    }
    line += (line ? " · " : "") + item;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join("\n");
}

/**
 * Under a latency table, where one database's round went: its store calls from `zero` returning (0 ms) to `end`, and
 * the median at which `end` was reached. `rounds` is how many rounds were kept (a call seen in fewer says so).
 */
export function printRoundTimeline(
  db: string,
  timeline: TimelineEntry[],
  rounds: number,
  { zero, end, endP50 }: { zero: string; end: string; endP50: number },
) {
  console.log(
    `  ${db}: store calls of a round, by median start (ms from ${zero} returning; negative: while it ran) and median duration:`,
  );
  console.log(`${formatTimeline(timeline, rounds)} → ${end} +${fmt(endP50)}`);
}
