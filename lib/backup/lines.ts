// A backup file as a BackupSource: its lines, read as a stream (the file is never held whole).
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { BackupSource } from "./import";

export function fileLines(file: string): BackupSource {
  return () => createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
}
