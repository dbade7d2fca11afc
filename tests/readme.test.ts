import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The front door stays a door: README short, every page in docs/ reachable from it, every relative link in
// README and docs/ pointing at a file that exists, and no comment or page sending the reader to a design
// document or an issue tracker they cannot open (a link into docs/ says it instead).

const ROOT = process.cwd();
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const docs = readdirSync(path.join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort();

// Built from pieces so that this file does not match itself.
const CITATIONS = [new RegExp(["DESIGN", "\\.md"].join("")), new RegExp(["\\bissue", "\\s*#\\s*\\d"].join(""), "i")];
const SCANNED = [
  "lib",
  "app",
  "components",
  "scripts",
  "tests",
  "docs",
  "e2e",
  "bench",
  "agents",
  "prisma",
  "bin",
  "clients",
  "deploy",
  "evals",
];
const TEXT = /\.(ts|tsx|mts|mjs|cjs|js|md|prisma|json|jsonl|yaml|yml|py|sh|sql|txt)$/;

/** The tracked text files under the scanned folders (generated files are not tracked). */
function trackedTextFiles(): string[] {
  return execFileSync("git", ["ls-files", "--", ...SCANNED], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => TEXT.test(file) && existsSync(path.join(ROOT, file)));
}

/** Relative link targets of a markdown file, without their #anchor. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.split("#")[0]);
}

describe("the front door", () => {
  it("README is at most 200 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(200);
  });

  it("README links every page in docs/, and bench/README.md", () => {
    const linked = new Set(relativeLinks(read("README.md")).map((target) => path.normalize(target)));
    expect(docs.length).toBeGreaterThan(10);
    expect(
      docs.filter((name) => !linked.has(path.join("docs", name))),
      "docs/ pages README does not link",
    ).toEqual([]);
    expect(linked.has(path.join("bench", "README.md"))).toBe(true);
  });

  it("every relative link in README, docs/ and bench/ points at a file that exists", () => {
    const pages = ["README.md", ...docs.map((name) => path.join("docs", name)), "bench/README.md", "bench/HISTORY.md"];
    const broken = pages.flatMap((page) =>
      relativeLinks(read(page))
        .filter((target) => !existsSync(path.join(ROOT, path.dirname(page), target)))
        .map((target) => `${page} → ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it("nothing cites a design document or an issue number: it links into docs/", () => {
    const files = ["README.md", ...trackedTextFiles()];
    expect(files.length).toBeGreaterThan(500);
    const citing = files.flatMap((file) =>
      read(file)
        .split("\n")
        .flatMap((line, i) =>
          CITATIONS.some((re) => re.test(line)) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : [],
        ),
    );
    expect(citing).toEqual([]);
  });
});
