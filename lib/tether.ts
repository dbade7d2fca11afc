import type { Db } from "@/lib/db";
import { builtInAgents } from "@/lib/agents";
import {
  createRuntime,
  type AgentDefinition,
  type Runtime,
  type RuntimeOptions,
  type RuntimeStore,
  type ToolDefinition,
} from "@/lib/runtime";
import { liveFeedOf, type LiveFeed } from "@/lib/live/live-feed";
import { withLiveFeed } from "@/lib/live/live-store";
import { createPrismaStore } from "@/lib/store/prisma-store";
import { createBuiltInTools } from "@/lib/tools";
import type { SandboxOptions } from "@/lib/tools/http";
import { createRegisteredToolResolver } from "@/lib/tools/registered";

// The one composition root. The console, `npm run worker`, the seed, the journey evals, the bench and
// the tests all build their engine here, each saying what differs (the database, the agents, the
// tools, the clock…) as parameters: nothing below reads the environment to choose a database.
// Plain TypeScript, no Next.js: usable from any process.

export type TetherOptions = Omit<RuntimeOptions, "store" | "agents" | "tools" | "resolveTool"> & {
  /** The database (lib/db: createDb(url) or getDb()). */
  db: Db;
  /** The agents this Tether runs. Default: the built-in demo agents. */
  agents?: AgentDefinition[];
  /** The built-in tools and any of a team's own. Default: the built-in tools, over HTTP to `sandbox`. */
  tools?: ToolDefinition[];
  /** Where the built-in tools reach the simulated world, with its credential and timeout (default tools only). */
  sandbox?: SandboxOptions;
  /** Tools an admin registers (HTTP, MCP), read from the database at every use. Default: on. */
  registeredTools?: boolean;
  /** Wraps the store: trace export, instrumentation. */
  wrapStore?: (store: RuntimeStore) => RuntimeStore;
  /** Told after each commit, for the console's live views (lib/live). Default: this process's feed of the database. */
  live?: LiveFeed;
};

export type Tether = { db: Db; runtime: Runtime; agents: AgentDefinition[]; tools: ToolDefinition[]; live: LiveFeed };

export function createTether(options: TetherOptions): Tether {
  const {
    db,
    agents = builtInAgents,
    sandbox,
    registeredTools = true,
    wrapStore,
    live = liveFeedOf(db),
    ...engine
  } = options;
  const tools = options.tools ?? defaultTools(sandbox);
  const store = createPrismaStore(db, { logger: engine.logger, ...(engine.clock ? { now: engine.clock.now } : {}) });
  const runtime = createRuntime({
    ...engine,
    store: withLiveFeed(wrapStore ? wrapStore(store) : store, live),
    agents,
    tools,
    ...(registeredTools ? { resolveTool: createRegisteredToolResolver(db, { logger: engine.logger }) } : {}),
  });
  return { db, runtime, agents, tools, live };
}

function defaultTools(sandbox: TetherOptions["sandbox"]): ToolDefinition[] {
  if (!sandbox) throw new Error("createTether: give the tools, or the sandbox the built-in tools reach");
  return createBuiltInTools(sandbox);
}
