import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The code half of an agent's version: a hash of its module's source and of every module it imports by a
// relative path (./policy, ../shared), followed transitively. Imports by package or by the "@/" alias are
// the framework's and the libraries', not the agent's: a change there does not make a new agent version.
// Read when the agent is defined (at start), from `source: import.meta.url` in defineAgent.

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.tsx", "/index.js"];
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

/** The hash of the module at `source` (a file: URL or a path) and its local imports; null when the source cannot be read. */
export function sourceHash(source: string): string | null {
  const sources = readSources(source);
  if (!sources) return null;
  const hash = createHash("sha256");
  for (const [file, text] of sources) hash.update(file).update("\0").update(text).update("\0");
  return hash.digest("hex");
}

/** The files the hash covers, relative to the agent's module (for the console and tests); [] when unreadable. */
export function sourceFiles(source: string): string[] {
  return [...(readSources(source)?.keys() ?? [])];
}

/** Each local file's text by its path relative to the agent's folder (the same code hashes the same
 *  wherever it is checked out), sorted; null when the module cannot be read. */
function readSources(source: string): Map<string, string> | null {
  const entry = toPath(source);
  if (!entry || !isFile(entry)) return null;
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, "utf8");
    seen.set(file, text);
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const imported = resolveImport(path.dirname(file), match[1]);
      if (imported) visit(imported);
    }
  };
  try {
    visit(entry);
  } catch {
    return null;
  }
  const root = path.dirname(entry);
  const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");
  return new Map(
    [...seen].map(([file, text]): [string, string] => [relative(file), text]).sort(([a], [b]) => a.localeCompare(b)),
  );
}

function toPath(source: string): string | null {
  try {
    return source.startsWith("file:") ? fileURLToPath(source) : path.resolve(source);
  } catch {
    return null;
  }
}

function resolveImport(dir: string, specifier: string): string | null {
  const base = path.resolve(dir, specifier);
  // TypeScript written for ESM names its imports ./x.js for a file ./x.ts.
  const candidates = [
    ...EXTENSIONS.map((ext) => base + ext),
    ...(/\.m?js$/.test(base) ? [base.replace(/\.(m?)js$/, ".$1ts"), base.replace(/\.js$/, ".tsx")] : []),
  ];
  return candidates.find(isFile) ?? null;
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}
