"use server";
// Server actions of the admin Agents page that read what a version would do (admin:manage). Upgrading a
// version's runs is an operator's act on runs and lives with the run actions (lib/actions/runs.ts).
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { replayAgentVersion } from "@/lib/commands/replay-agent-version";
import { MAX_CONSOLE_REPLAY } from "@/lib/replay";
import { getRuntime } from "@/lib/runtime.server";

const replayVersionSchema = z.object({
  slug: z.string().trim().min(1).max(64),
  version: z.string().trim().min(1).max(64),
  limit: z.coerce.number().int().min(1).max(MAX_CONSOLE_REPLAY).optional(),
});

/** {slug, version, limit?} → the version's recent finished runs replayed on the current code: counts, and each differing run's first difference. */
export const replayVersionAction = defineAction(
  { schema: replayVersionSchema, scope: "admin:manage", audit: { action: "agents.replay", byHandler: true } },
  async ({ slug, version, limit }, { user, db }) =>
    replayAgentVersion({ db, runtime: getRuntime() }, { slug, version, limit, by: user.email }),
);
