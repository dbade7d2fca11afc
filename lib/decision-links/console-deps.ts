import { getDb } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";
import type { DecideByLinkDeps } from "./decide-by-link";
import { decisionLinkKey } from "./token";

/** The running console's database, packets, decisions, key and clock, for the link page and its confirmation route. */
export function decisionLinkDeps(): DecideByLinkDeps {
  const runtime = getRuntime();
  return {
    db: getDb(),
    getPacket: (id, workspaceId) => runtime.store.getPacket(id, workspaceId),
    decide: runtime.decidePacket,
    key: decisionLinkKey(),
    now: () => new Date(),
  };
}
