import { AGENT_VERSION_LENGTH } from "./agent-version";
import type { AgentDefinition } from "./types";

/** A version derived from the definition (agent-version.ts), not a label a person chose before versions were derived. */
const DERIVED_VERSION = new RegExp(`^[0-9a-f]{${AGENT_VERSION_LENGTH}}$`);

// The agents a process runs, keyed by (slug, version). Several versions of one agent may be loaded at
// once: a run stays on the version it started with until it ends, new runs take the newest. The newest
// of a slug is the one loaded last (listed last). A run whose version is no longer loaded is not failed:
// the engine parks it for an operator (agent-version-gone.ts).
//
// The lookup API is small on purpose — other parts (replay, the console) read agents only through it:
//   get(slug)              the newest version of the agent (what a new run takes), or undefined
//   version(slug, version) exactly that version, or undefined when it is not loaded; a run that started before
//                          versions were derived names its version by the old hand-set label ("2"): it stays on the
//                          loaded version carrying that label, as it did then, instead of parking on deploy
//   versions(slug)         every loaded version, oldest first
//   keys() / values()      the slugs; the newest definition of each

export class AgentRegistry {
  private readonly bySlug = new Map<string, AgentDefinition[]>();

  constructor(agents: Iterable<AgentDefinition> = []) {
    for (const agent of agents) this.add(agent);
  }

  /** Load one more version beside those loaded: it becomes the newest. Loading a loaded version again moves it last. */
  add(agent: AgentDefinition): this {
    const loaded = (this.bySlug.get(agent.slug) ?? []).filter((a) => a.version !== agent.version);
    this.bySlug.set(agent.slug, [...loaded, agent]);
    return this;
  }

  /** Load `agent` as the only version of `slug` (a deployment that replaces the code): the others are gone. */
  set(slug: string, agent: AgentDefinition): this {
    this.bySlug.set(slug, [agent]);
    return this;
  }

  get(slug: string): AgentDefinition | undefined {
    return this.bySlug.get(slug)?.at(-1);
  }

  version(slug: string, version: string): AgentDefinition | undefined {
    const loaded = this.bySlug.get(slug);
    const exact = loaded?.find((a) => a.version === version);
    if (exact || DERIVED_VERSION.test(version)) return exact;
    return loaded?.findLast((a) => a.label === version);
  }

  versions(slug: string): AgentDefinition[] {
    return [...(this.bySlug.get(slug) ?? [])];
  }

  has(slug: string): boolean {
    return this.bySlug.has(slug);
  }

  keys(): IterableIterator<string> {
    return this.bySlug.keys();
  }

  /** The newest version of each agent. */
  *values(): IterableIterator<AgentDefinition> {
    for (const versions of this.bySlug.values()) yield versions.at(-1)!;
  }

  /** Every loaded version of every agent. */
  all(): AgentDefinition[] {
    return [...this.bySlug.values()].flat();
  }
}
