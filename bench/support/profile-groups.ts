import type { Profiler } from "node:inspector";

// A V8 CPU profile reduced to self time per function, each function put in the folder it belongs to,
// so a change to the engine can be chosen by where the time goes (bench/profile.ts).

export type Group = "runtime" | "store" | "zod" | "crypto" | "pg" | "JSON" | "prisma" | "gc" | "other";
export type FunctionTime = { name: string; where: string; group: Group; selfMs: number };

const IDLE = new Set(["(idle)", "(root)"]);

/** The folder of a profiled function, from its script URL (native functions by their name). */
export function groupOf(frame: Profiler.ProfileNode["callFrame"]): Group {
  const url = frame.url;
  const name = frame.functionName;
  if (name === "(garbage collector)") return "gc";
  if (/\/node_modules\/zod\//.test(url)) return "zod";
  if (/\/node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-\w+)\//.test(url)) return "pg";
  if (/\/node_modules\/(@prisma|\.prisma)\/|\/lib\/generated\//.test(url) || /\/lib\/db\.ts/.test(url)) return "prisma";
  if (/\/lib\/runtime\//.test(url)) return "runtime";
  if (/\/lib\/store\//.test(url)) return "store";
  if (/crypto/.test(url) || (!url && /^(digest|update|createHash|Hash|randomUUID|randomBytes)$/.test(name)))
    return "crypto";
  if (!url && /^(stringify|parse|JSONSerialize|JSONParse)$/.test(name)) return "JSON";
  return "other";
}

/** Self time per function (ms over the whole profile), most first; idle time left out. */
export function selfTimes(profile: Profiler.Profile): FunctionTime[] {
  const byNode = new Map<number, Profiler.ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the time before sample i: it is the previous sample's duration.
  for (let i = 1; i < samples.length; i++) selfUs.set(samples[i - 1], (selfUs.get(samples[i - 1]) ?? 0) + deltas[i]);
  const byFunction = new Map<string, FunctionTime>();
  for (const [id, us] of selfUs) {
    const node = byNode.get(id);
    if (!node || IDLE.has(node.callFrame.functionName)) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    // tsx compiles a .ts file to other lines: its line number would mislead, the file does not.
    const file = url.replace(/^file:\/\//, "").replace(`${process.cwd()}/`, "");
    const where = !url ? "(native)" : /\.tsx?$/.test(file) ? file : `${file}:${lineNumber + 1}`;
    const key = `${functionName}@${where}`;
    const entry = byFunction.get(key) ?? {
      name: functionName || "(anonymous)",
      where,
      group: groupOf(node.callFrame),
      selfMs: 0,
    };
    entry.selfMs += us / 1000;
    byFunction.set(key, entry);
  }
  return [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs);
}
