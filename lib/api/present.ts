import type { DecisionPacket, RunRecord } from "@/lib/runtime/types";

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
