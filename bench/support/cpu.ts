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

export const cpuSample = (database: string): CpuSample => ({ at: performance.now(), machine: machine(), backends: backendsOf(database) });

/** Cores used between two samples: the machine's busy cores, and the database's backends (those alive at the end). */
export function cpuBetween(a: CpuSample, b: CpuSample): { machineCores: number | null; backendCores: number } {
  const seconds = (b.at - a.at) / 1000;
  let jiffies = 0;
  for (const [pid, t] of b.backends) jiffies += t - (a.backends.get(pid) ?? 0);
  const machineCores = a.machine && b.machine && b.machine.total > a.machine.total
    ? ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * cpus().length
    : null;
  return { machineCores, backendCores: jiffies / HZ / seconds };
}
