import { z } from "zod";
import { builtInAgents, exampleInputs } from "@/lib/agents";
import { DECIDED_PACKET_STATUSES, type DecisionPacket, type PacketStatus, type RunRecord } from "@/lib/runtime/types";

// What the API returns for runs and packets: plain JSON, no internal lease details beyond the owner.

export function presentRun(run: RunRecord) {
  return {
    id: run.id,
    agent: run.agentSlug,
    agentVersion: run.agentVersion,
    status: run.status,
    step: run.state.step,
    error: run.error,
    startedBy: run.startedBy,
    parentRunId: run.parentRunId,
    spawnedByRunId: run.spawnedByRunId,
    spawnedAtStep: run.spawnedAtStep,
    leaseOwner: run.leaseOwner,
    wakeAt: run.wakeAt,
    waitingFor: run.waitingFor,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

export function presentPacket(packet: DecisionPacket) {
  const { version: _version, ...rest } = packet;
  return rest;
}

/** Each agent with its input JSON Schema and an example input that works against the demo world. */
export function presentAgents() {
  return builtInAgents
    .filter((agent) => !agent.internal)
    .map((agent) => ({
      slug: agent.slug,
      name: agent.name,
      version: agent.version,
      description: agent.description,
      tools: agent.tools,
      inputSchema: z.toJSONSchema(agent.input, { unrepresentable: "any" }),
      exampleInput: exampleInputs[agent.slug] ?? null,
    }));
}

/** The packet statuses a `status=pending|decided|all` filter stands for (undefined: every status). */
export function packetStatusesOf(filter: "pending" | "decided" | "all"): PacketStatus[] | undefined {
  return filter === "pending" ? ["PENDING"] : filter === "decided" ? [...DECIDED_PACKET_STATUSES] : undefined;
}
