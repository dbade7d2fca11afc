import { versionName } from "./agent-version";
import { actionDigest, sha256 } from "./canonical";
import type { EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { appendObservation, pendingSchema, type Pending, type RunState } from "./state";
import type { AgentDefinition } from "./types";
import { takeDecision } from "./woken-packet";

// A run whose agent version is no longer loaded (the deployment dropped it) is not failed: it parks on a
// decision packet — "version X is gone: upgrade to Y, or cancel". Approving it moves the run to the newest
// loaded version (its state kept as it is, the new version's instructions in force, a person's redirects
// kept) and it goes on; rejecting it cancels the run. Whatever the run was waiting on before (an effect
// in doubt, a gate, a timer) is kept aside and waited on again after the upgrade.

/** The packet's tool name: not a tool, the run's agent version. */
export const VERSION_TOOL = "run.agent_version";

type VersionPending = Extract<Pending, { kind: "version" }>;

/** What the packet proposes: the version the run is on and the one an approval moves it to. */
export type VersionUpgradeArgs = { slug: string; from: string; upgradeTo: string };

export function parkVersionGone(ctx: EngineContext, cursor: RunCursor, newest: AgentDefinition): Promise<StepOutcome> {
  const pinned = cursor.state.agent.version;
  const packetId = ctx.ids.id("pkt");
  const args: VersionUpgradeArgs = { slug: newest.slug, from: pinned, upgradeTo: newest.version };
  const digest = actionDigest({ runId: cursor.runId, step: cursor.step, tool: VERSION_TOOL, args });
  const impact = `version ${pinned} of ${newest.slug} is gone: upgrade to ${versionName(newest)}, or cancel`;
  cursor.state.pending = { kind: "version", packetId, step: cursor.step, then: cursor.state.pending ?? null };
  cursor.event("agent.version_gone", { pinned, loaded: newest.version, packetId });
  return cursor.park("NEEDS_ATTENTION", {
    createPacket: {
      id: packetId,
      runId: cursor.runId,
      step: cursor.step,
      kind: "VERSION",
      tool: VERSION_TOOL,
      args,
      digest,
      requestedBy: `agent:${newest.slug}`,
      traits: null,
      content: {
        impact,
        evidence: [],
        options: ["approve", "reject"],
        why: `The run started on version ${pinned} of ${newest.slug}, which this deployment no longer runs. Approve to continue it on ${versionName(newest)} (its state is kept; the new version's instructions apply), or reject to cancel the run.`,
      },
      queue: "default",
      assignee: null,
      requiredApprovals: 1,
      onExpire: "reject",
      expiresAt: null,
    },
  });
}

/** The run was woken while its version packet was open: upgrade and go on, cancel, or keep waiting. */
export async function resumeVersionGone(
  ctx: EngineContext,
  cursor: RunCursor,
  pending: VersionPending,
): Promise<StepOutcome> {
  const taken = await takeDecision(ctx, cursor, pending.packetId, "version");
  if ("outcome" in taken) return taken.outcome;
  const { packet, decision, by } = taken;
  if (packet.status !== "APPROVED") {
    cursor.event("agent.version_cancelled", { packetId: packet.id, by, reason: decision.reason ?? null });
    return cursor.finish(
      "CANCELLED",
      `cancelled by ${by} when its agent version ${cursor.state.agent.version} was gone${decision.reason ? `: ${decision.reason}` : ""}`,
    );
  }
  const newest = ctx.agents.get(cursor.run.agentSlug);
  if (!newest) return cursor.finish("FAILED", `agent ${cursor.run.agentSlug} is not registered`);
  const from = cursor.state.agent.version;
  switchVersion(
    cursor.state,
    newest,
    `${by} upgraded the run from version ${from}, which is gone, to ${versionName(newest)} of ${newest.slug}.`,
  );
  const then = pendingSchema.safeParse(pending.then);
  cursor.state.pending = then.success ? then.data : null;
  cursor.event("run.upgraded", { by, from, to: newest.version, packetId: packet.id });
  return cursor.commit({
    status: "RUNNING",
    agentVersion: newest.version,
    updatePacket: { id: packet.id, version: packet.version, usedAt: cursor.now() },
  });
}

/** The run's state on another version of its agent: its instructions in force, a person's redirects kept. */
export function switchVersion(state: RunState, agent: AgentDefinition, message: string): void {
  state.agent = { slug: agent.slug, version: agent.version, instructionsHash: sha256(agent.instructions) };
  state.instructions = [agent.instructions, ...state.instructions.slice(1)];
  state.observations = appendObservation(state.observations, { step: state.step, kind: "upgraded", message });
}
