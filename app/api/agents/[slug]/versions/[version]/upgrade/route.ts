import { z } from "zod";
import { defineRoute, tokenActor } from "@/lib/api/route";
import { upgradeAgentVersion } from "@/lib/commands/upgrade-agent-version";

export const dynamic = "force-dynamic";

const params = z.object({ slug: z.string().min(1).max(64), version: z.string().min(1).max(64) });

/** Every run of one version of an agent, not ended, moves to the newest version; runs a worker holds right now are listed as skipped. */
export const POST = defineRoute({ scope: "runs:write", params }, async ({ params, principal, runtime, db }) => ({
  upgrade: await upgradeAgentVersion(
    { db, runtime },
    { slug: params.slug, version: params.version, ...tokenActor(principal) },
  ),
}));
