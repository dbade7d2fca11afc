import {
  defineAgent,
  definePlan,
  isTurnedDown,
  readRun,
  stepOf,
  z,
  type Decision,
  type Observation,
  type RunReader,
  type RunState,
} from "@/lib/sdk";
import type { Deploy, DeployList, DeployStarted, DocSearch } from "@/lib/tools";

// deploy-agent: plans a schema migration (risk and rollback, from the runbook), asks an operator,
// runs it (unsafe: never repeated on its own), waits for the deploy.finished callback — which may
// arrive several times — and verifies the result with the deploy system before it completes.
//
// When the start's answer was lost (a timeout, a crash right after the call) the engine asks a person.
// Their answer may name the deploy ("happened", receipt dep_…); when it does not, the agent looks the
// run's deploys up (deploys.find) before it waits, so it still knows which deploy to verify — and after a
// "it did not happen — skip it" it checks there is none before reporting that nothing was deployed.
//
// Facts: runbook (observation) → risk, rollback (inferences) → deploy (receipt, or a person's decision)
// → [deploy:found | deploy:check (observations)] → signal:deploy.finished (receipt) → verification (observation).

export const DEFAULT_CALLBACK_TIMEOUT_MS = 30 * 60_000;
/** How often a deploy that the callback says is finished, but the deploy system still shows running, is re-read. */
const MAX_VERIFY_READS = 3;
const VERIFY_RETRY_MS = 5_000;

export const deployAgentInputSchema = z.object({
  migration: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][\w.-]{0,119}$/, "Name the migration as it is in the repository, e.g. 0042_add_orders_index."),
  reason: z.string().trim().max(500, "Keep the reason under 500 characters.").optional(),
  /** How long to wait for the deploy system's callback before checking on the deploy directly. */
  callbackTimeoutMs: z
    .number()
    .int()
    .min(1_000, "Wait at least one second.")
    .max(7 * 86_400_000, "Wait at most a week.")
    .default(DEFAULT_CALLBACK_TIMEOUT_MS),
});
export type DeployAgentInput = z.input<typeof deployAgentInputSchema>;

export type MigrationRisk = {
  migration: string;
  level: "low" | "medium" | "high";
  why: string;
  runbook: string | null;
};
export type MigrationRollback = { migration: string; plan: string };
type Signal = { deployId?: string; outcome?: string; migration?: string };
/** A person's "it happened" on an unknown outcome (lib/runtime/gates.ts): the receipt is the deploy id, when they gave it. */
type Vouched = { happened?: boolean; confirmedBy?: string; receipt?: string; note?: string };

const plan = definePlan({
  research: "Read the migration runbook",
  plan: "Assess risk and plan the rollback",
  run: "Run the migration (operator approves)",
  wait: "Wait for the deploy to finish",
  verify: "Verify the deploy",
});

const INSTRUCTIONS = `You run database schema migrations in production. Read the migration runbook, assess the risk of
the migration and write down how to roll it back. An operator approves every migration. Run it once — a migration
cannot be safely repeated — then wait for the deploy system's deploy.finished callback and verify the deploy's
status before reporting success. If the answer to the start was lost and a person says it ran without naming the
deploy, or says it did not run, find this run's deploys with deploys.find before going on. If the migration failed,
fail the run and say how to roll back.`;

/** The risk of a migration, read from its name: destructive changes are high, additive ones low. */
export function assessMigration(
  migration: string,
  docs: DocSearch | undefined,
): { risk: MigrationRisk; rollback: MigrationRollback } {
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

/** The newest observation of this kind about this tool. */
function lastObservation(state: RunState, kind: Observation["kind"], tool: string): Observation | undefined {
  return state.observations.findLast((o) => o.kind === kind && o.tool === tool);
}

/** Was the tool called (whatever came of it) after this step? */
const triedSince = (state: RunState, tool: string, step: number) =>
  state.observations.some((o) => o.tool === tool && o.step > step);

/**
 * A person answered the unknown outcome with "it did not happen — skip it". Before the run reports that
 * nothing was deployed, the deploy system is asked for this run's deploys: one there means the person
 * was wrong, and an operator must look before anything else happens.
 */
function afterSkip(
  run: RunReader,
  risk: MigrationRisk,
  skipped: Observation,
  stop: (reason: string) => Decision,
): Decision {
  const check = run.fact("deploy:check");
  if (!check || stepOf(check) < skipped.step) {
    const refused = run.outcome("deploys.find", skipped.step);
    if (refused) return stop(`${skipped.message} (the deploy system could not be checked: ${refused.message})`);
    return {
      kind: "call",
      tool: "deploys.find",
      args: {},
      resultKey: "deploy:check",
      planStep: "run",
      reasoning: `A person said ${risk.migration} did not run: check the deploy system before reporting that nothing was deployed.`,
      evidence: [],
    };
  }
  const deploys = (check.value as DeployList).deploys;
  if (deploys.length === 0) return stop(skipped.message);
  return {
    kind: "fail",
    reason: `A person said ${risk.migration} did not run, but the deploy system shows ${deploys.map((d) => `${d.deployId} (${d.migration}, ${d.status})`).join(", ")} started by this run; an operator should check it before anything else runs.`,
  };
}

function decide(input: z.output<typeof deployAgentInputSchema>, run: RunReader): Decision {
  const runbookFact = run.fact("runbook");
  const riskFact = run.fact("risk");

  if (!runbookFact) {
    return run.callUnlessFailed(-1, "Could not read the migration runbook", {
      tool: "docs.search",
      args: { query: "migration" },
      resultKey: "runbook",
      planStep: "research",
    });
  }

  // A person may redirect the run to another migration; anything else ends it without deploying.
  const redirectStep = run.lastStep("redirected", "deploys.run_migration");
  const redirect = run.redirect();
  const migration = migrationIn(redirect) ?? input.migration;
  if (!riskFact || stepOf(riskFact) < redirectStep) {
    if (redirectStep > stepOf(riskFact) && !migrationIn(redirect)) {
      return run.complete(
        plan({ research: "done", plan: "done", run: "skipped", wait: "skipped", verify: "skipped" }),
        {
          deployed: false,
          migration: input.migration,
          reason: `A person redirected the run: "${redirect}". Nothing was deployed.`,
        },
      );
    }
    const { risk, rollback } = assessMigration(migration, runbookFact.value as DocSearch);
    return {
      kind: "record",
      facts: [
        { key: "risk", value: risk },
        { key: "rollback", value: rollback },
      ],
      plan: plan({ research: "done", plan: "done", run: "active" }),
      reason: `${migration}: ${risk.level} risk. ${risk.why}`,
    };
  }
  const risk = riskFact.value as MigrationRisk;
  const rollback = run.fact("rollback")!.value as MigrationRollback;
  const deployFact = run.fact("deploy");

  if (!deployFact) {
    const reply = run.outcome("deploys.run_migration", stepOf(riskFact));
    const stop = (reason: string) =>
      run.complete(plan({ research: "done", plan: "done", run: "skipped", wait: "skipped", verify: "skipped" }), {
        deployed: false,
        migration: risk.migration,
        reason,
      });
    if (reply && isTurnedDown(reply)) return stop(reply.message);
    // "It did not happen — skip it" after an unknown outcome: a person's word, checked with the deploy system first.
    const skipped = lastObservation(run.state, "resolved", "deploys.run_migration");
    if (skipped && skipped.step > stepOf(riskFact)) return afterSkip(run, risk, skipped, stop);
    return run.callUnlessFailed(stepOf(riskFact), `The deploy system refused ${risk.migration}`, {
      tool: "deploys.run_migration",
      args: { migration: risk.migration },
      resultKey: "deploy",
      planStep: "run",
      reasoning: `${risk.why} Rollback: ${rollback.plan}${input.reason ? ` Requested because: ${input.reason}` : ""}`,
      uncertainty: risk.level,
      evidence: ["runbook", "risk", "rollback"],
    });
  }

  // Started (a receipt), or a person vouched that it ran (a decision: "happened", maybe with the deploy id as its receipt).
  const started = deployFact.kind === "receipt" ? (deployFact.value as DeployStarted) : undefined;
  const vouched = deployFact.kind === "decision" ? (deployFact.value as Vouched) : undefined;
  const signalFact = run.fact("signal:deploy.finished");
  const signal = signalFact?.value as Signal | undefined;
  const foundFact = run.fact("deploy:found");
  const found =
    foundFact && stepOf(foundFact) > stepOf(deployFact) ? (foundFact.value as DeployList).deploys : undefined;

  // It ran, but nobody said which deploy it is: ask the deploy system (once) before waiting on it.
  if (!started && !vouched?.receipt && !signalFact && !triedSince(run.state, "deploys.find", stepOf(deployFact))) {
    return {
      kind: "call",
      tool: "deploys.find",
      args: {},
      resultKey: "deploy:found",
      planStep: "wait",
      reasoning: `The start of ${risk.migration} went unanswered and a person confirmed it ran without naming the deploy: find the deploy this run started.`,
      evidence: [],
    };
  }
  if (found && found.length > 1) {
    return {
      kind: "fail",
      reason: `The deploy system shows ${found.length} deploys started by this run (${found.map((d) => `${d.deployId}: ${d.migration}, ${d.status}`).join("; ")}); ${risk.migration} must run once — an operator should check them.`,
    };
  }
  const known = started?.deployId ?? vouched?.receipt ?? found?.[0]?.deployId;
  const deployId = known ?? signal?.deployId;
  const timedOut = run.lastStep("timeout") > stepOf(deployFact);

  if (!signalFact && !timedOut) {
    const what = deployId
      ? `deploy ${deployId} (${risk.migration})`
      : `${risk.migration}${found ? " (the deploy system shows no deploy of this run yet)" : ""}`;
    return {
      kind: "wait_event",
      eventType: "deploy.finished",
      timeoutMs: input.callbackTimeoutMs,
      reason: `Waiting for ${what} to finish`,
    };
  }
  if (known && signal?.deployId && signal.deployId !== known) {
    const whose = started
      ? "this run started"
      : vouched?.receipt
        ? `${vouched.confirmedBy ?? "a person"} named`
        : "the deploy system shows for this run";
    return {
      kind: "fail",
      reason: `The deploy.finished callback names deploy ${signal.deployId}, but ${whose} ${known}; an operator should check both.`,
    };
  }
  if (!deployId) {
    const why = found ? "the deploy system shows no deploy started by this run" : "no deploy id is known";
    return {
      kind: "fail",
      reason: `No deploy.finished callback for ${risk.migration} arrived in time and ${why}; an operator should check the deploy system.`,
    };
  }

  const verificationFact = run.fact("verification");
  const checkedAfter = Math.max(stepOf(signalFact), stepOf(deployFact), run.lastStep("timer"));
  if (!verificationFact || stepOf(verificationFact) < checkedAfter) {
    return run.callUnlessFailed(checkedAfter, `Could not verify deploy ${deployId}`, {
      tool: "deploys.status",
      args: { deployId },
      resultKey: "verification",
      planStep: "verify",
    });
  }
  const verification = verificationFact.value as Deploy;
  const reads = run.state.facts.filter((f) => f.key === "verification").length;

  if (verification.status === "failed" || signal?.outcome === "failed") {
    return {
      kind: "fail",
      reason: `Migration ${risk.migration} failed (deploy ${deployId}: callback said ${signal?.outcome ?? "nothing"}, the deploy system says ${verification.status}). Roll back: ${rollback.plan}`,
    };
  }
  if (verification.status === "running") {
    if (!signalFact)
      return {
        kind: "fail",
        reason: `Migration ${risk.migration} (deploy ${deployId}) is still running after ${Math.round(input.callbackTimeoutMs / 1000)} s and no callback arrived; an operator should watch it.`,
      };
    if (reads < MAX_VERIFY_READS)
      return {
        kind: "sleep",
        durationMs: VERIFY_RETRY_MS,
        reason: `The callback says ${signal?.outcome}, the deploy system still says running: read it again shortly`,
      };
    return {
      kind: "fail",
      reason: `The callback says deploy ${deployId} ${signal?.outcome}, but the deploy system still says running after ${reads} reads.`,
    };
  }
  return run.complete(plan({ research: "done", plan: "done", run: "done", wait: "done", verify: "done" }), {
    deployed: true,
    migration: risk.migration,
    deployId,
    status: verification.status,
    completedAt: verification.completedAt,
    risk: risk.level,
    callbackReceived: Boolean(signalFact),
  });
}

export const deployAgent = defineAgent({
  slug: "deploy-agent",
  label: "2",
  source: import.meta.url, // its code is part of its version: an edit here or in a local import is a new version
  name: "Deploy agent",
  description:
    "Plans a schema migration (risk, rollback), gets an operator's approval, runs it once, waits for the deploy callback and verifies it.",
  instructions: INSTRUCTIONS,
  input: deployAgentInputSchema,
  tools: ["docs.search", "deploys.run_migration", "deploys.status", "deploys.find"],
  // Always a person; unanswered for an hour, it goes to whoever is on call.
  gates: { "deploys.run_migration": { queue: "operators", ttlSeconds: 3600, onExpire: "escalate:oncall" } },
  plan: plan.steps,
  maxSteps: 40,
  exampleInput: {
    migration: "0042_add_orders_customer_email_index",
    reason: "Order history lookups by email are slow.",
  },
  policy: ({ state }) => decide(deployAgentInputSchema.parse(state.input), readRun(state)),
});
