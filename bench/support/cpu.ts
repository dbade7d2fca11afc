import { readFileSync, readdirSync } from "node:fs";
import { cpus } from "node:os";

// Where the CPU went during a phase, from /proc (Linux): the whole machine (every process, other
// people's included), and the Postgres backends serving one database (their process title names it).
// Jiffies are 1/100 s on Linux (USER_HZ).

const HZ = 100;

export type CpuSample = { at: number; machine: { busy: number; total: number } | null; backends: Map<number, number> };

function machine(): { busy: number; total: number } | null {
  try {
    const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
    const n = fields.map(Number);
    const total = n.reduce((a, b) => a + b, 0);
    const idle = (n[3] ?? 0) + (n[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** utime + stime (jiffies) of every Postgres backend connected to `database`. */
function backendsOf(database: string): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!title.startsWith("postgres:") || !title.includes(` ${database} `)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(pid), Number(fields[11]) + Number(fields[12])); // utime, stime (fields 14, 15 of stat)
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export const cpuSample = (database: string): CpuSample => ({
  at: performance.now(),
  machine: machine(),
  backends: backendsOf(database),
});

/** Cores used between two samples: the machine's busy cores, and the database's backends (those alive at the end). */
export function cpuBetween(a: CpuSample, b: CpuSample): { machineCores: number | null; backendCores: number } {
  const seconds = (b.at - a.at) / 1000;
  let jiffies = 0;
  for (const [pid, t] of b.backends) jiffies += t - (a.backends.get(pid) ?? 0);
  const machineCores =
    a.machine && b.machine && b.machine.total > a.machine.total
      ? ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * cpus().length
      : null;
  return { machineCores, backendCores: jiffies / HZ / seconds };
}

/** CPU spent over a measured window: this Node process (user + system), and the Postgres backends of one
 *  database (null when not readable: SQLite, or no /proc). Backends that exit inside the window are missed,
 *  so the window must end before a client disconnects. */
export type CpuWindow = { nodeMs: number; backendMs: number | null };

/** Starts a window; the function it returns ends it. `database`: whose backends to count (null: none). */
export function cpuWindow(database: string | null): () => CpuWindow {
  const node0 = process.cpuUsage();
  const backends0 = database ? backendsOf(database) : null;
  return () => {
    const node = process.cpuUsage(node0);
    let backendMs: number | null = null;
    if (database && backends0) {
      const end = backendsOf(database);
      let jiffies = 0;
      for (const [pid, t] of end) jiffies += t - (backends0.get(pid) ?? 0);
      backendMs = end.size > 0 ? (jiffies / HZ) * 1000 : null;
    }
    return { nodeMs: (node.user + node.system) / 1000, backendMs };
  };
}

/** Per step: the figures the tables print. */
export const cpuPerStep = (w: CpuWindow, steps: number) => ({
  nodeMs: w.nodeMs / steps,
  backendMs: w.backendMs === null ? null : w.backendMs / steps,
});

/** The database a connection string names (its backends' process title carries it). */
export const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));
