import { canonicalJson, sha256 } from "@/lib/runtime/canonical";
import { evalCaseSpecSchema, type EvalCaseSpec } from "./spec";

// Datasets travel as JSONL: one case per line. Blank lines and lines starting with "//" are skipped,
// so a dataset file can carry comments. The dataset's version is the hash of its canonical cases.

export class DatasetParseError extends Error {
  constructor(readonly errors: Array<{ line: number; message: string }>) {
    super(`invalid dataset: ${errors.map((e) => `line ${e.line}: ${e.message}`).join("; ")}`);
    this.name = "DatasetParseError";
  }
}

export function parseCasesJsonl(text: string): EvalCaseSpec[] {
  const cases: EvalCaseSpec[] = [];
  const errors: Array<{ line: number; message: string }> = [];
  const seen = new Set<string>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("//")) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      errors.push({ line: i + 1, message: `not JSON (${error instanceof Error ? error.message : String(error)})` });
      return;
    }
    const parsed = evalCaseSpecSchema.safeParse(json);
    if (!parsed.success) {
      errors.push({
        line: i + 1,
        message: parsed.error.issues.map((issue) => `${issue.path.join(".") || "(case)"}: ${issue.message}`).join(", "),
      });
      return;
    }
    if (seen.has(parsed.data.id)) errors.push({ line: i + 1, message: `duplicate case id ${parsed.data.id}` });
    seen.add(parsed.data.id);
    cases.push(parsed.data);
  });
  if (errors.length > 0) throw new DatasetParseError(errors);
  return cases;
}

export function casesToJsonl(cases: EvalCaseSpec[]): string {
  return cases.map((c) => JSON.stringify(c)).join("\n") + "\n";
}

/** The dataset version: a short content hash, equal for equal cases in equal order. */
export function datasetVersion(cases: EvalCaseSpec[]): string {
  return sha256(cases.map((c) => canonicalJson(c)).join("\n")).slice(0, 16);
}
