import { versionName } from "./agent-version";
import { switchVersion } from "./agent-version-gone";
import type { EngineContext } from "./context";
import { decidePacket } from "./decide-packet";
import { AppError } from "./errors";
import { auditNote } from "./store";
import type { AgentDefinition, RunRecord, RunStatus } from "./types";

// An operator moves runs to the newest loaded version of their agent: one run (POST /api/runs/:id/upgrade)
// or every run of one version (POST /api/agents/:slug/versions/:version/upgrade). Runs otherwise stay on
// the version they started with until they end (agent-registry.ts).

/** Statuses in which no worker is stepping the run: it can be moved and queued. A waiting run re-waits
 *  on what its state says it waits for (a timer, an event, a packet), so queueing it early is harmless. */
const UPGRADABLE: RunStatus[] = ["QUEUED", "SLEEPING", "WAITING_EVENT", "WAITING_APPROVAL", "NEEDS_ATTENTION"];

export type VersionUpgrade = {
  slug: string;
  from: string;
  to: string;
  upgraded: string[];
  skipped: Array<{ runId: string; reason: string }>;
};

function newestOf(ctx: EngineContext, slug: string): AgentDefinition {
  const agent = ctx.agents.get(slug);
  if (!agent)
    throw new AppError("NOT_FOUND", {
      message: `agent ${slug} is not registered`,
      userMessage: `This deployment does not run ${slug}.`,
    });
  return agent;
}

export async function upgradeRun(
  ctx: EngineContext,
  run: RunRecord,
  opts: { by: string; via?: string; bulk?: string },
): Promise<RunRecord> {
  const agent = newestOf(ctx, run.agentSlug);
  if (agent.version === run.agentVersion) {
    throw new AppError("CONFLICT", {
      message: `run ${run.id} is on ${agent.version} already`,
      userMessage: `The run already runs version ${versionName(agent)}, the newest: there is nothing to upgrade.`,
    });
  }
  const pending = run.state.pending;
  if (pending?.kind === "version") {
    // Its version is gone and a packet asks what to do: the upgrade is that packet's approval, so the
    // inbox, the packet's audit row and the run agree; the worker moves the run when it wakes.
    await decidePacket(ctx, {
      packetId: pending.packetId,
      reviewer: opts.by,
      input: { decision: "approve" },
      via: opts.via,
      workspaceId: run.workspaceId,
    });
    return (await ctx.store.getRun(run.id))!;
  }
  if (run.status === "RUNNING") {
    throw new AppError("CONFLICT", {
      message: `run ${run.id} is running`,
      userMessage: "A worker is running the run right now; try again in a moment.",
    });
  }
  if (!UPGRADABLE.includes(run.status)) {
    throw new AppError("RUN_NOT_WAITING", {
      message: `run ${run.id} is ${run.status}`,
      userMessage: `The run is ${run.status.toLowerCase().replace("_", " ")}; only a run that has not ended can be upgraded.`,
    });
  }
  const state = structuredClone(run.state);
  switchVersion(
    state,
    agent,
    `${opts.by} upgraded the run from version ${run.agentVersion} to ${versionName(agent)} of ${agent.slug}.`,
  );
  return ctx.store.transitionRun({
    runId: run.id,
    from: [run.status],
    to: "QUEUED",
    agentVersion: agent.version,
    state: { state, storedEntries: run.storedEntries },
    expect: { stateSeq: run.stateSeq },
    audit: auditNote("runs.upgrade", run.id, opts, {
      from: run.agentVersion,
      to: agent.version,
      ...(opts.bulk ? { bulk: opts.bulk } : {}),
    }),
    events: [
      {
        type: "run.upgraded",
        step: state.step,
        data: { by: opts.by, from: run.agentVersion, to: agent.version, ...(opts.bulk ? { bulk: opts.bulk } : {}) },
      },
    ],
  });
}

const PAGE = 200;

export async function upgradeVersion(
  ctx: EngineContext,
  opts: { slug: string; version: string; by: string; via?: string },
): Promise<VersionUpgrade> {
  const agent = newestOf(ctx, opts.slug);
  if (agent.version === opts.version) {
    throw new AppError("CONFLICT", {
      message: `${opts.version} is the newest version of ${opts.slug}`,
      userMessage: `Version ${versionName(agent)} is the newest of ${opts.slug}: there is nothing to upgrade its runs to.`,
    });
  }
  const bulk = ctx.ids.id("upg");
  const result: VersionUpgrade = { slug: opts.slug, from: opts.version, to: agent.version, upgraded: [], skipped: [] };
  const active = [...UPGRADABLE, "RUNNING" as const];
  // The ids first, then the moves: a run moved leaves the version, which would shift the pages under us.
  const ids: string[] = [];
  for (let cursor: string | undefined; ;) {
    const page = await ctx.store.findRuns({
      agentSlug: opts.slug,
      agentVersion: opts.version,
      status: active,
      limit: PAGE,
      cursor,
    });
    ids.push(...page.map((r) => r.id));
    if (page.length < PAGE) break;
    cursor = page.at(-1)!.id;
  }
  for (const id of ids) {
    try {
      const run = await ctx.store.getRun(id);
      if (!run || run.agentVersion !== opts.version) continue; // deleted, or moved by someone else meanwhile
      await upgradeRun(ctx, run, { by: opts.by, via: opts.via, bulk });
      result.upgraded.push(id);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      result.skipped.push({ runId: id, reason: error.userMessage });
    }
  }
  return result;
}
