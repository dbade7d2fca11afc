import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import { seg, type SandboxClient } from "./http";

// Deploys: running a migration is unsafe — no key, no lookup — so an unknown outcome goes to a
// person, never to a retry. Completion is reported later as a `deploy.finished` signal.

export const runMigrationInputSchema = z.object({
  migration: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][\w.-]{0,119}$/, "Name the migration as it is in the repository, e.g. 0042_add_orders_index."),
});
export type RunMigrationInput = z.infer<typeof runMigrationInputSchema>;

export const deployStartedSchema = z.object({ deployId: z.string(), status: z.string() });
export type DeployStarted = z.infer<typeof deployStartedSchema>;

export const deployStatusInputSchema = z.object({
  deployId: z.string().trim().min(1, "Give the deploy id, e.g. dep_…"),
});
export type DeployStatusInput = z.infer<typeof deployStatusInputSchema>;

export const deploySchema = z.object({
  deployId: z.string(),
  migration: z.string(),
  status: z.string(), // running | succeeded | failed
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});
export type Deploy = z.infer<typeof deploySchema>;

export function deployTools(client: SandboxClient): ToolDefinition[] {
  const runMigration: ToolDefinition<RunMigrationInput, DeployStarted> = {
    name: "deploys.run_migration",
    description: "Start a schema migration on the production database. Unsafe: it cannot be safely repeated. Completion arrives later as a deploy.finished signal.",
    capability: "execute",
    semantics: "unsafe",
    input: runMigrationInputSchema,
    output: deployStartedSchema,
    describeImpact: ({ migration }) => `runs migration ${migration} on the production database`,
    call: ({ migration }, ctx) => client.post("/deploys", ctx, { body: { migration, runId: ctx.runId } }),
    receiptId: (d) => d.deployId,
  };
  const status: ToolDefinition<DeployStatusInput, Deploy> = {
    name: "deploys.status",
    description: "Read a deploy's status (running, succeeded or failed) and when it started and completed.",
    capability: "read",
    semantics: "pure-read",
    input: deployStatusInputSchema,
    output: deploySchema,
    freshnessMs: 30_000,
    describeImpact: ({ deployId }) => `reads the status of deploy ${deployId}`,
    call: ({ deployId }, ctx) => client.get(`/deploys/${seg(deployId)}`, ctx),
  };
  return [runMigration, status];
}
