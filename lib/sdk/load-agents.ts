import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isDefinedAgent, type DefinedAgent } from "./define-agent";
import { SdkDefinitionError } from "./errors";

/**
 * The agents of a folder, loaded at run time: the default export of every `<dir>/<name>/index.ts` and
 * every `<dir>/<name>.ts` (tests, `*.test.ts`, and files starting with `_` or `.` are skipped), made
 * with defineAgent. Sorted by slug; two agents with one slug, or a default export that is not an
 * agent, throw an error naming the file.
 *
 * For processes that run TypeScript directly (tsx, vitest). The Next.js app cannot import files chosen
 * at run time: it runs the agents listed in agents/index.ts, which `tether new agent` keeps up to date.
 */
export async function loadAgents(dir = path.join(process.cwd(), "agents")): Promise<DefinedAgent[]> {
  const files = agentFiles(dir);
  const agents: Array<{ agent: DefinedAgent; file: string }> = [];
  for (const file of files) {
    // A path known only at run time: bundlers are told to leave this import to the runtime.
    const mod = (await import(
      /* @vite-ignore */ /* webpackIgnore: true */ /* turbopackIgnore: true */ pathToFileURL(file).href
    )) as { default?: unknown };
    if (!isDefinedAgent(mod.default)) {
      throw new SdkDefinitionError(
        `${path.relative(process.cwd(), file)}: its default export must be an agent made with defineAgent (export default defineAgent({ … }))`,
      );
    }
    const same = agents.find((a) => a.agent.definition.slug === (mod.default as DefinedAgent).definition.slug);
    if (same)
      throw new SdkDefinitionError(
        `${path.relative(process.cwd(), file)} and ${path.relative(process.cwd(), same.file)} both define the agent "${same.agent.definition.slug}"`,
      );
    agents.push({ agent: mod.default, file });
  }
  return agents.map((a) => a.agent).sort((a, b) => a.definition.slug.localeCompare(b.definition.slug));
}

/** The files loadAgents imports from `dir` (none when it does not exist). */
export function agentFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const skipped = (name: string) =>
    name.startsWith("_") || name.startsWith(".") || /\.test\.ts$/.test(name) || name === "index.ts";
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (skipped(entry.name) || entry.name === "node_modules") continue;
    if (entry.isDirectory()) {
      const index = path.join(dir, entry.name, "index.ts");
      if (existsSync(index)) files.push(index);
    } else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
      files.push(path.join(dir, entry.name));
    }
  }
  return files;
}
