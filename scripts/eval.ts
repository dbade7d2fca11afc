// `npm run eval -- --dataset default --faults all`: journey evals (lib/evals, docs/evals.md).
//   --dataset <name | file.jsonl>   a stored dataset's name, or a JSONL file ("default" = evals/datasets/default.jsonl)
//   --faults none|all|<kind,...>     the fault schedule (kinds: see lib/evals/faults.ts)
//   --case <id>[,<id>]               only these cases
//   --policy scripted|model          default: model when TETHER_MODEL is set, else scripted
//   --agents <module.ts>             your own agents and tools instead of the demo ones: a module whose default
//                                    export is { agents: [defineAgent(…)], tools: (world) => [defineTool(…)] }
//                                    (lib/evals/subject.ts); tools declare `ledger` for the effects they leave
//   --threshold <dimension>=<0..1>   override a threshold (repeatable)
//   --concurrency <n>                trials at once (default 2)
//   --report <file>                  where the JSON report goes (default data/evals/report-<id>.json)
//   --no-store                       do not store the eval run in the database (DATABASE_URL)
//   --import <file.jsonl> [--name <name>]   store a dataset and exit
//   --export <name> [--out <file>]          print (or write) a stored dataset as JSONL and exit
//   --replay --agent <slug> [--since 7d | --runs <id,…> | --dataset <backup.jsonl>] [--limit N] [--allow <file>]
//                                    recorded runs replayed through this code instead (scripts/replay.ts: the same flags)
// Exits 1 when a score is under its threshold (recovery and approval compliance must be 100%).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { importDataset } from "../lib/commands/import-dataset.ts";
import { createDb, defaultDatabaseUrl, type Db } from "../lib/db.ts";
import { runEval } from "../lib/evals/harness.ts";
import { datasetVersion, parseCasesJsonl } from "../lib/evals/jsonl.ts";
import { exportDatasetJsonl, getDataset } from "../lib/queries/eval-records.ts";
import { setEvalReportPath } from "../lib/evals/records.ts";
import { createProgress, formatReport } from "../lib/evals/report.ts";
import { DIMENSIONS, type Dimension, type EvalCaseSpec } from "../lib/evals/spec.ts";
import { REPLAY_OPTIONS, replayCommand } from "../lib/replay/cli.ts";

// `--replay`: the replay's own flags (--dataset is then a backup file, not an eval dataset).
const replaying = process.argv.includes("--replay");

const { values } = parseArgs({
  args: replaying ? [] : process.argv.slice(2),
  options: {
    dataset: { type: "string", default: "default" },
    faults: { type: "string", default: "none" },
    case: { type: "string" },
    policy: { type: "string" },
    agents: { type: "string" },
    threshold: { type: "string", multiple: true, default: [] },
    concurrency: { type: "string", default: "2" },
    report: { type: "string" },
    "no-store": { type: "boolean", default: false },
    import: { type: "string" },
    export: { type: "string" },
    name: { type: "string" },
    out: { type: "string" },
  },
});

const BUILT_IN: Record<string, string> = { default: "evals/datasets/default.jsonl" };

/** Who the audit log names for a dataset this CLI stores: the shell's user, as `tether create-admin` does. */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli"; // a uid without a passwd entry (some containers and CI runners)
  }
}

/** The results database, if it has the eval tables (a fresh checkout may not be set up yet). */
async function resultsDb(): Promise<Db | null> {
  if (values["no-store"]) return null;
  const db = createDb(defaultDatabaseUrl());
  try {
    await db.evalRun.count();
    return db;
  } catch {
    console.warn(
      `eval: results are not stored: ${defaultDatabaseUrl().replace(/\/\/[^@]*@/, "//…@")} has no eval tables (npm run db:deploy sets it up)`,
    );
    await db.$disconnect();
    return null;
  }
}

async function loadDataset(
  db: Db | null,
): Promise<{ cases: EvalCaseSpec[]; dataset: { id: string | null; name: string; version: string } }> {
  const ref = values.dataset!;
  const file = BUILT_IN[ref] ?? (ref.endsWith(".jsonl") || existsSync(ref) ? ref : null);
  if (file) {
    const text = readFileSync(file, "utf8");
    const name = BUILT_IN[ref] ? ref : path.basename(file).replace(/\.jsonl$/, "");
    if (db) {
      // Stored (or updated) under its name, so eval runs point at the dataset version they ran.
      const stored = await importDataset(
        { db },
        { jsonl: text, name, source: file, by: cliActor(), via: "npm run eval" },
      );
      return { cases: stored.cases.map((c) => c.spec), dataset: { id: stored.id, name, version: stored.version } };
    }
    const cases = parseCasesJsonl(text);
    return { cases, dataset: { id: null, name, version: datasetVersion(cases) } };
  }
  if (!db) throw new Error(`no dataset file ${ref}, and no database to find a stored dataset in`);
  const stored = await getDataset(ref, db);
  return {
    cases: stored.cases.map((c) => c.spec),
    dataset: { id: stored.id, name: stored.name, version: stored.version },
  };
}

function thresholds(): Partial<Record<Dimension, number>> {
  return Object.fromEntries(
    values.threshold!.map((t) => {
      const [dimension, value] = t.split("=");
      if (!(DIMENSIONS as readonly string[]).includes(dimension) || !(Number(value) >= 0 && Number(value) <= 1)) {
        throw new Error(`--threshold ${t}: use <${DIMENSIONS.join("|")}>=<0..1>`);
      }
      return [dimension, Number(value)];
    }),
  );
}

async function main(): Promise<number> {
  if (values.import || values.export) {
    const db = createDb(defaultDatabaseUrl());
    try {
      if (values.import) {
        const name = values.name ?? path.basename(values.import).replace(/\.jsonl$/, "");
        const stored = await importDataset(
          { db },
          {
            jsonl: readFileSync(values.import, "utf8"),
            name,
            source: values.import,
            by: cliActor(),
            via: "npm run eval",
          },
        );
        console.log(`imported ${stored.caseCount} cases as dataset "${stored.name}" (version ${stored.version})`);
      } else {
        const text = await exportDatasetJsonl(values.export!, db);
        if (values.out) writeFileSync(values.out, text);
        else process.stdout.write(text);
      }
      return 0;
    } finally {
      await db.$disconnect();
    }
  }

  const db = await resultsDb();
  const { cases, dataset } = await loadDataset(db);
  const policy =
    values.policy === "scripted" || values.policy === "model"
      ? values.policy
      : process.env.TETHER_MODEL
        ? "model"
        : "scripted";
  const progress = createProgress();
  const outcome = await runEval({
    cases,
    dataset,
    db,
    policy,
    subject: values.agents,
    faults: values.faults!,
    caseFilter: values.case
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    thresholds: thresholds(),
    concurrency: Math.max(1, Number(values.concurrency) || 2),
    onProgress: (p) => progress.update(p),
  });
  progress.done();
  console.log(formatReport(outcome));

  const reportPath = values.report ?? path.join("data", "evals", `report-${outcome.id ?? `local-${Date.now()}`}.json`);
  mkdirSync(path.dirname(reportPath), { recursive: true });
  const { results, ...summary } = outcome;
  writeFileSync(reportPath, JSON.stringify({ ...summary, dataset, faults: values.faults, results }, null, 2));
  if (db && outcome.id) await setEvalReportPath(db, outcome.id, reportPath);
  console.log(`report: ${reportPath}${outcome.id ? ` · eval run ${outcome.id}` : ""}`);
  await db?.$disconnect();
  return outcome.status === "PASSED" ? 0 : 1;
}

function replay(): Promise<number> {
  const { values: flags } = parseArgs({ options: { replay: { type: "boolean" }, ...REPLAY_OPTIONS } });
  return replayCommand(flags);
}

(replaying ? replay() : main()).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`eval: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
