import { z } from "zod";
import { latestFact, type AgentDefinition, type Decision, type RunState } from "@/lib/runtime";
import type { Deploy, DeployStarted, DocSearch } from "@/lib/tools";
import { completeWith, isTurnedDown, lastStepOf, latestRedirect, outcomeOf, permissionsFor, planWith, scriptedPolicy, stepOf, type DemoAgent, type Plan, type PlanStatus } from "./shared";

// deploy-agent: plans a schema migration (risk and rollback, from the runbook), asks an operator,
// runs it (unsafe: never repeated on its own), waits for the deploy.finished callback — which may
// arrive several times — and verifies the result with the deploy system before it completes.
//
// Facts: runbook (observation) → risk, rollback (inferences) → deploy (receipt) →
// signal:deploy.finished (receipt) → verification (observation).

export const DEFAULT_CALLBACK_TIMEOUT_MS = 30 * 60_000;
/** How often a deploy that the callback says is finished, but the deploy system still shows running, is re-read. */
const MAX_VERIFY_READS = 3;
const VERIFY_RETRY_MS = 5_000;

export const deployAgentInputSchema = z.object({
  migration: z.string().trim().regex(/^[A-Za-z0-9][\w.-]{0,119}$/, "Name the migration as it is in the repository, e.g. 0042_add_orders_index."),
  reason: z.string().trim().max(500, "Keep the reason under 500 characters.").optional(),
  /** How long to wait for the deploy system's callback before checking on the deploy directly. */
  callbackTimeoutMs: z.number().int().min(1_000, "Wait at least one second.").max(7 * 86_400_000, "Wait at most a week.").default(DEFAULT_CALLBACK_TIMEOUT_MS),
});
export type DeployAgentInput = z.input<typeof deployAgentInputSchema>;

export type MigrationRisk = { migration: string; level: "low" | "medium" | "high"; why: string; runbook: string | null };
export type MigrationRollback = { migration: string; plan: string };
type Signal = { deployId?: string; outcome?: string; migration?: string };

const PLAN: Plan = [
  { id: "research", title: "Read the migration runbook", status: "pending" },
  { id: "plan", title: "Assess risk and plan the rollback", status: "pending" },
  { id: "run", title: "Run the migration (operator approves)", status: "pending" },
  { id: "wait", title: "Wait for the deploy to finish", status: "pending" },
  { id: "verify", title: "Verify the deploy", status: "pending" },
];

const INSTRUCTIONS = `You run database schema migrations in production. Read the migration runbook, assess the risk of
the migration and write down how to roll it back. An operator approves every migration. Run it once — a migration
cannot be safely repeated — then wait for the deploy system's deploy.finished callback and verify the deploy's
status before reporting success. If the migration failed, fail the run and say how to roll back.`;

/** The risk of a migration, read from its name: destructive changes are high, additive ones low. */
export function assessMigration(migration: string, docs: DocSearch | undefined): { risk: MigrationRisk; rollback: MigrationRollback } {
  const name = migration.toLowerCase();
  const runbook = docs?.docs[0] ?? null;
  const cite = runbook ? ` (runbook: "${runbook.title}")` : "";
  let level: MigrationRisk["level"] = "medium";
  let why = "It changes the schema in a way that is neither clearly additive nor destructive.";
  let plan = `Restore from the snapshot taken before ${migration}, or apply its down migration.`;
  if (/drop|delete|truncate|remove/.test(name)) {
    level = "high";
    why = "It removes schema or data: a rollback cannot bring data back without a restore.";
    plan = `Take a snapshot first; to roll back, restore it — the down migration of ${migration} cannot recreate dropped data.`;
  } else if (/rename|alter|change|type/.test(name)) {
    level = "medium";
    why = "It changes existing columns or tables: running application code may break until it is deployed too.";
    plan = `Apply the down migration of ${migration}, which reverses the change; deploy the previous application version with it.`;
  } else if (/add|create|index/.test(name)) {
    level = "low";
    why = "It only adds schema; existing queries keep working.";
    plan = `Apply the down migration of ${migration}, which drops what it added.`;
  }
  return {
    risk: { migration, level, why: `${why}${cite}`, runbook: runbook?.id ?? null },
    rollback: { migration, plan },
  };
}

/** A migration named by a person's redirect ("run 0043_add_index instead"), if any. */
function migrationIn(text: string | undefined): string | undefined {
  return text ? /\b\d{3,}_[\w.-]+\b/.exec(text)?.[0] : undefined;
}

const plan = (statuses: Record<string, PlanStatus>) => planWith(PLAN, statuses);

function decide(state: RunState): Decision {
  const input = deployAgentInputSchema.parse(state.input);
  const runbookFact = latestFact(state, "runbook");
  const riskFact = latestFact(state, "risk");

  if (!runbookFact) {
    const failed = outcomeOf(state, "docs.search", -1);
    if (failed?.kind === "tool_error") return { kind: "fail", reason: `Could not read the migration runbook: ${failed.message}` };
    return { kind: "call", tool: "docs.search", args: { query: "migration" }, resultKey: "runbook", planStep: "research", evidence: [] };
  }

  // A person may redirect the run to another migration; anything else ends it without deploying.
  const redirectStep = lastStepOf(state, "redirected", "deploys.run_migration");
  const redirect = latestRedirect(state);
  const migration = migrationIn(redirect) ?? input.migration;
  if (!riskFact || stepOf(riskFact) < redirectStep) {
    if (redirectStep > stepOf(riskFact) && !migrationIn(redirect)) {
      return completeWith(state, plan({ research: "done", plan: "done", run: "skipped", wait: "skipped", verify: "skipped" }), {
        deployed: false, migration: input.migration, reason: `A person redirected the run: "${redirect}". Nothing was deployed.`,
      });
    }
    const { risk, rollback } = assessMigration(migration, runbookFact.value as DocSearch);
    return {
      kind: "record",
      facts: [{ key: "risk", value: risk }, { key: "rollback", value: rollback }],
      plan: plan({ research: "done", plan: "done", run: "active" }),
      reason: `${migration}: ${risk.level} risk. ${risk.why}`,
    };
  }
  const risk = riskFact.value as MigrationRisk;
  const rollback = latestFact(state, "rollback")!.value as MigrationRollback;
  const deployFact = latestFact(state, "deploy");

  if (!deployFact) {
    const reply = outcomeOf(state, "deploys.run_migration", stepOf(riskFact));
    const stop = (reason: string) =>
      completeWith(state, plan({ research: "done", plan: "done", run: "skipped", wait: "skipped", verify: "skipped" }), { deployed: false, migration: risk.migration, reason });
    if (reply && isTurnedDown(reply)) return stop(reply.message);
    if (reply?.kind === "resolved") return stop(reply.message); // a person confirmed it never ran
    if (reply?.kind === "tool_error") return { kind: "fail", reason: `The deploy system refused ${risk.migration}: ${reply.message}` };
    return {
      kind: "call",
      tool: "deploys.run_migration",
      args: { migration: risk.migration },
      resultKey: "deploy",
      planStep: "run",
      reasoning: `${risk.why} Rollback: ${rollback.plan}${input.reason ? ` Requested because: ${input.reason}` : ""}`,
      uncertainty: risk.level,
      evidence: ["runbook", "risk", "rollback"],
    };
  }

  // Started (a receipt), or a person vouched that it ran (a decision without a deploy id).
  const started = deployFact.kind === "receipt" ? (deployFact.value as DeployStarted) : undefined;
  const signalFact = latestFact(state, "signal:deploy.finished");
  const signal = signalFact?.value as Signal | undefined;
  const deployId = started?.deployId ?? signal?.deployId;
  const timedOut = lastStepOf(state, "timeout") > stepOf(deployFact);

  if (!signalFact && !timedOut) {
    return { kind: "wait_event", eventType: "deploy.finished", timeoutMs: input.callbackTimeoutMs, reason: `Waiting for ${risk.migration} to finish` };
  }
  if (started && signal?.deployId && signal.deployId !== started.deployId) {
    return { kind: "fail", reason: `The deploy.finished callback names deploy ${signal.deployId}, but this run started ${started.deployId}; an operator should check both.` };
  }
  if (!deployId) return { kind: "fail", reason: `No deploy.finished callback for ${risk.migration} arrived in time and no deploy id is known; an operator should check the deploy system.` };

  const verificationFact = latestFact(state, "verification");
  const checkedAfter = Math.max(stepOf(signalFact), stepOf(deployFact), lastStepOf(state, "timer"));
  if (!verificationFact || stepOf(verificationFact) < checkedAfter) {
    const failed = outcomeOf(state, "deploys.status", checkedAfter);
    if (failed?.kind === "tool_error") return { kind: "fail", reason: `Could not verify deploy ${deployId}: ${failed.message}` };
    return { kind: "call", tool: "deploys.status", args: { deployId }, resultKey: "verification", planStep: "verify", evidence: [] };
  }
  const verification = verificationFact.value as Deploy;
  const reads = state.facts.filter((f) => f.key === "verification").length;

  if (verification.status === "failed" || signal?.outcome === "failed") {
    return { kind: "fail", reason: `Migration ${risk.migration} failed (deploy ${deployId}: callback said ${signal?.outcome ?? "nothing"}, the deploy system says ${verification.status}). Roll back: ${rollback.plan}` };
  }
  if (verification.status === "running") {
    if (!signalFact) return { kind: "fail", reason: `Migration ${risk.migration} (deploy ${deployId}) is still running after ${Math.round(input.callbackTimeoutMs / 1000)} s and no callback arrived; an operator should watch it.` };
    if (reads < MAX_VERIFY_READS) return { kind: "sleep", durationMs: VERIFY_RETRY_MS, reason: `The callback says ${signal?.outcome}, the deploy system still says running: read it again shortly` };
    return { kind: "fail", reason: `The callback says deploy ${deployId} ${signal?.outcome}, but the deploy system still says running after ${reads} reads.` };
  }
  return completeWith(state, plan({ research: "done", plan: "done", run: "done", wait: "done", verify: "done" }), {
    deployed: true,
    migration: risk.migration,
    deployId,
    status: verification.status,
    completedAt: verification.completedAt,
    risk: risk.level,
    callbackReceived: Boolean(signalFact),
  });
}

const definition: AgentDefinition<z.output<typeof deployAgentInputSchema>> = {
  slug: "deploy-agent",
  version: "1",
  name: "Deploy agent",
  description: "Plans a schema migration (risk, rollback), gets an operator's approval, runs it once, waits for the deploy callback and verifies it.",
  instructions: INSTRUCTIONS,
  input: deployAgentInputSchema,
  tools: ["docs.search", "deploys.run_migration", "deploys.status"],
  plan: PLAN,
  maxSteps: 40,
  policy: scriptedPolicy(({ state }) => decide(state)),
};

export const deployAgent: DemoAgent = {
  definition,
  exampleInput: { migration: "0042_add_orders_customer_email_index", reason: "Order history lookups by email are slow." } satisfies DeployAgentInput,
  defaultPermissions: permissionsFor(definition.slug, [
    { tool: "docs.search", effect: "allow" },
    // Always a person; unanswered for an hour, it goes to whoever is on call.
    { tool: "deploys.run_migration", effect: "require_approval", queue: "operators", ttlSeconds: 3600, onExpire: "escalate:oncall" },
    { tool: "deploys.status", effect: "allow" },
  ]),
};
