import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import { seg, type SandboxClient } from "./http";
import { sandboxEffect, sandboxRead } from "./sandbox-tool";

// Deploys: running a migration is unsafe — no key, and no lookup by operation — so an unknown outcome
// goes to a person, never to a retry. Completion is reported later as a `deploy.finished` signal.
//
// The deploy system can be searched by migration and by the run that started a deploy (deploys.find).
// run_migration's `lookup` uses that search, but it stays `unsafe`: a search by run and migration is not
// a lookup of *this* operation (a start still in flight is not in it yet; the same run could have run the
// migration before), so the engine never acts on it by itself. A person uses it ("Check now" on the
// unknown-outcome packet) and the deploy agent reads deploys.find when it knows a deploy started but not
// which one.

const migrationName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][\w.-]{0,119}$/, "Name the migration as it is in the repository, e.g. 0042_add_orders_index.");

export const runMigrationInputSchema = z.object({ migration: migrationName });

export const deployStartedSchema = z.object({ deployId: z.string(), status: z.string() });
export type DeployStarted = z.infer<typeof deployStartedSchema>;

export const deployStatusInputSchema = z.object({
  deployId: z.string().trim().min(1, "Give the deploy id, e.g. dep_…"),
});

export const deploySchema = z.object({
  deployId: z.string(),
  migration: z.string(),
  status: z.string(), // running | succeeded | failed
  runId: z.string().nullable().optional(), // the run that started it
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});
export type Deploy = z.infer<typeof deploySchema>;

export const findDeploysInputSchema = z.object({
  migration: migrationName.optional(),
  /** Whose deploys; unset: the run calling the tool. */
  runId: z.string().trim().min(1).max(255).optional(),
});

export const deployListSchema = z.object({ deploys: z.array(deploySchema) });
export type DeployList = z.infer<typeof deployListSchema>;

/** The deploy system's search (it answers `{ deploys }` newest first). */
function deploySearchPath({ migration, runId }: { migration?: string; runId: string }): string {
  return `/deploys?${new URLSearchParams({ runId, ...(migration ? { migration } : {}) })}`;
}

export function deployTools(client: SandboxClient): ToolDefinition[] {
  const runMigration = sandboxEffect(client, {
    name: "deploys.run_migration",
    ledger: { system: "deploys", action: "migrate" },
    description:
      "Start a schema migration on the production database. Unsafe: it cannot be safely repeated. Completion arrives later as a deploy.finished signal.",
    capability: "execute",
    semantics: "unsafe",
    input: runMigrationInputSchema,
    output: deployStartedSchema,
    impact: ({ migration }) => `runs migration ${migration} on the production database`,
    post: "/deploys",
    body: ({ migration }, ctx) => ({ migration, runId: ctx.runId }),
    // For a person's "Check now" only (see above): the newest deploy of this migration this run started.
    lookup: async ({ migration }, ctx) => {
      const found = await client.get(deploySearchPath({ migration, runId: ctx.runId }), ctx);
      const [newest] = deployListSchema.parse(found).deploys;
      return newest ? { deployId: newest.deployId, status: newest.status } : null;
    },
    receiptId: (d) => d.deployId,
  });
  const status = sandboxRead(client, {
    name: "deploys.status",
    description: "Read a deploy's status (running, succeeded or failed) and when it started and completed.",
    input: deployStatusInputSchema,
    output: deploySchema,
    freshnessMs: 30_000,
    impact: ({ deployId }) => `reads the status of deploy ${deployId}`,
    get: ({ deployId }) => `/deploys/${seg(deployId)}`,
  });
  const find = sandboxRead(client, {
    name: "deploys.find",
    description:
      "Find deploys by the run that started them (default: this run) and optionally by migration, newest first — e.g. a deploy whose start response was lost.",
    input: findDeploysInputSchema,
    output: deployListSchema,
    freshnessMs: 30_000,
    impact: ({ migration, runId }) =>
      `searches the deploy system for ${migration ? `deploys of ${migration}` : "deploys"} started by ${runId ? `run ${runId}` : "this run"}`,
    get: ({ migration, runId }, ctx) => deploySearchPath({ migration, runId: runId ?? ctx.runId }),
  });
  return [runMigration, status, find];
}
