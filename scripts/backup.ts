// `npx tether export` and `npx tether import` (docs/backup.md), against the configured database
// (DATABASE_URL / TETHER_DATA_DIR, .env files read like the app does):
//   export [--since <date>] [--run <id,id…>]     the backup on stdout
//   import [<file> | -] [--json]                  a backup from the file, or stdin; prints what it did
// bin/tether.mjs runs scripts/setup.ts --no-seed before an import (a new deployment's tables), never
// before an export (a backup does not migrate the database it reads).
import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { exportBackup } from "../lib/backup/export.ts";
import { BackupFileError, importBackup, type ImportReport } from "../lib/backup/import.ts";
import { fileLines } from "../lib/backup/lines.ts";
import { exitWith, openConfiguredDb } from "./local-command.ts";

const USAGE =
  "usage: tether export [--since <date>] [--run <id,…>] > backup.jsonl\n       tether import [<file> | -] [--json]   (DATABASE_URL picks the database)";

class UsageError extends Error {}

const SWITCHES = new Set(["json"]); // flags without a value

function parseArgs(argv: string[]) {
  const flags: Record<string, string | true> = {};
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].slice(2);
    if (argv[i].startsWith("--"))
      flags[name] = SWITCHES.has(name) || argv[i + 1] === undefined || argv[i + 1].startsWith("--") ? true : argv[++i];
    else args.push(argv[i]);
  }
  return { flags, args };
}

/** A day (2026-12-01, midnight UTC) or an instant (2026-12-01T09:30:00Z). */
function parseSince(value: string | true | undefined): Date | undefined {
  if (value === undefined) return undefined;
  if (
    value === true ||
    !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    throw new UsageError(
      `--since takes a date (2026-12-01) or a date and time (2026-12-01T09:30:00Z), not ${value === true ? "nothing" : JSON.stringify(value)}`,
    );
  }
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
}

async function runExport(flags: Record<string, string | true>) {
  const since = parseSince(flags.since);
  if (flags.run === true) throw new UsageError("--run takes run ids, separated by commas");
  const runIds =
    typeof flags.run === "string"
      ? flags.run
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined;
  const db = openConfiguredDb();
  try {
    const out = process.stdout;
    for await (const line of exportBackup(db, { since, runIds })) {
      if (!out.write(line)) await once(out, "drain");
    }
  } finally {
    await db.$disconnect();
  }
}

/** stdin is read once; the import reads its file twice (check, then write), so stdin is kept in a temporary file. */
async function spoolStdin(): Promise<{ file: string; remove: () => void }> {
  if (process.stdin.isTTY) throw new UsageError(`import reads a backup from a file or from stdin\n${USAGE}`);
  const dir = mkdtempSync(path.join(tmpdir(), "tether-import-"));
  const file = path.join(dir, "backup.jsonl");
  await pipeline(process.stdin, createWriteStream(file));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function runImport(args: string[], flags: Record<string, string | true>) {
  const spooled = args[0] === undefined || args[0] === "-" ? await spoolStdin() : { file: args[0], remove: () => {} };
  const db = openConfiguredDb();
  try {
    const report = await importBackup(db, fileLines(spooled.file));
    console.log(flags.json ? JSON.stringify(report) : describe(report));
  } finally {
    spooled.remove();
    await db.$disconnect();
  }
}

function describe(report: ImportReport): string {
  const tally = (counts: ImportReport["written"]) =>
    Object.entries(counts)
      .map(([table, n]) => `${n} ${table}`)
      .join(", ") || "nothing";
  const lines = [
    `imported ${report.runs.imported} run(s); skipped ${report.runs.skipped} already here`,
    `  written: ${tally(report.written)}`,
    `  skipped: ${tally(report.skipped)}`,
  ];
  if (report.runs.differing.length > 0) {
    lines.push(
      `  ${report.runs.differing.length} skipped run(s) differ from the file (the copy here was kept): ${report.runs.differing.join(", ")}`,
    );
  }
  return lines.join("\n");
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const { flags, args } = parseArgs(rest);
  if (command === "export") await runExport(flags);
  else if (command === "import") await runImport(args, flags);
  else throw new UsageError(USAGE);
  return 0;
}

exitWith(main, process.argv[2] ?? "backup", (error) => {
  if (error instanceof UsageError) {
    console.error(`tether: ${error.message}`);
    return 2;
  }
  if (error instanceof BackupFileError) {
    console.error(`tether: import refused, nothing was written: ${error.message}`);
    return 1;
  }
  return undefined;
});
