import { actingWorkspace, DEFAULT_WORKSPACE_ID, enteredWorkspace } from "./workspace";
import { newRecordId } from "./record-id";
import { AgentRegistry } from "./agent-registry";
import { upgradeRun, upgradeVersion, type VersionUpgrade } from "./agent-upgrade";
import { DEFAULT_CARRY_READS, silentLogger, type EngineContext, type RuntimeOptions } from "./context";
import { checkUnknownOutcome } from "./check-outcome";
import { cancelChildren, childSignalType, notifyParent } from "./children";
import { newRunState, runCreatedEvent } from "./new-run";
import { decidePacket, type DecidePacketOptions } from "./decide-packet";
import { AppError, fieldErrorsFromIssues } from "./errors";
import { misplacedConditions, permissionInputSchema } from "./permissions";
import { buildRecoveryView, type RecoveryView } from "./recovery";
import { forkRun, type ForkOptions } from "./fork-run";
import { retryRun, type RetryOptions } from "./retry-run";
import { budgetLimitsSchema } from "./state";
import { auditNote } from "./store";
import {
  TERMINAL_STATUSES,
  RUN_STATUSES,
  type DecisionPacket,
  type PermissionRule,
  type RunRecord,
  type RunStatus,
} from "./types";
import { createWorker, type WorkerOptions } from "./worker";
import { z } from "zod";

// The composition of the engine: everything is passed in, nothing is global.

export const startRunSchema = z.object({
  agent: z.string().min(1),
  input: z.unknown(),
  idempotencyKey: z.string().min(1).max(200).optional(),
  startedBy: z.string().min(1).optional(),
  /** The owning workspace; by default the one the caller has entered (lib/runtime/workspace.ts). */
  workspaceId: z.string().min(1).optional(),
  /** Overrides the agent's budget field by field (budget.ts). */
  budget: budgetLimitsSchema.optional(),
});
export type StartRunInput = z.input<typeof startRunSchema>;

export const deliverSignalSchema = z.object({
  type: z.string().min(1).max(100),
  dedupKey: z.string().min(1).max(200),
  payload: z.unknown().default({}),
});

export function createRuntime(options: RuntimeOptions) {
  const ctx: EngineContext = {
    store: options.store,
    agents: new AgentRegistry(options.agents),
    tools: new Map(options.tools.map((t) => [t.name, t])),
    resolveTool: options.resolveTool ?? (async () => undefined),
    clock: options.clock ?? { now: () => new Date() },
    ids: options.ids ?? { id: newRecordId },
    logger: options.logger ?? silentLogger,
    fault: async (point, info) => {
      await options.onFaultPoint?.(point, info);
    },
    authorizeDecision: options.authorizeDecision ?? (async () => null),
    maxAttempts: options.maxAttempts ?? 3,
    retryBaseDelayMs: options.retryBaseDelayMs ?? 100,
    maxConsecutiveErrors: options.maxConsecutiveErrors ?? 3,
    maxPolicyAttempts: options.maxPolicyAttempts ?? 5,
    policyRetryBaseMs: options.policyRetryBaseMs ?? 2000,
    childCheckMs: options.childCheckMs ?? 5 * 60_000,
    carryReads: options.carryReads ?? DEFAULT_CARRY_READS,
    permissionCache: new Map(),
    permissionReads: new Map(),
  };
  const { store } = ctx;

  async function getRun(id: string): Promise<RunRecord> {
    const run = await store.getRun(id);
    if (!run)
      throw new AppError("NOT_FOUND", { message: `run ${id} not found`, userMessage: "That run does not exist." });
    return run;
  }

  /** Cancel a run, then its children (each cascading to its own); a child cancelled by hand wakes its parent. */
  async function cancelRun(
    opts: { runId: string; by: string; reason?: string; via?: string },
    cascaded: boolean,
  ): Promise<RunRecord> {
    const active = RUN_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));
    // A child cancelled by hand wakes its parent with the cancel (the signal after it is for a parent parking just then).
    const parent = cascaded ? null : ((await store.getRun(opts.runId).catch(() => null))?.spawnedByRunId ?? null);
    // Bumping the epoch fences out a worker that is mid-step: its next write is refused.
    const run = await store.transitionRun({
      ...(parent ? { wakeRun: { runId: parent, waitingFor: childSignalType(opts.runId) } } : {}),
      runId: opts.runId,
      from: active,
      to: "CANCELLED",
      revokeLease: true,
      audit: auditNote("runs.cancel", opts.runId, opts, {
        reason: opts.reason ?? null,
        ...(cascaded ? { cascaded: true } : {}),
      }),
      events: [
        {
          type: "run.cancelled",
          step: -1,
          data: { by: opts.by, reason: opts.reason ?? null, ...(cascaded ? { cascaded: true } : {}) },
        },
      ],
    });
    if (!cascaded) await notifyParent(ctx, run, run.status);
    await cancelChildren(ctx, run.id, (childRunId) =>
      cancelRun(
        { runId: childRunId, by: opts.by, via: opts.via, reason: `its parent run ${run.id} was cancelled` },
        true,
      ),
    );
    return run;
  }

  function invalid(message: string, issues: Parameters<typeof fieldErrorsFromIssues>[0]) {
    return new AppError("INVALID_INPUT", { message, userMessage: message, fieldErrors: fieldErrorsFromIssues(issues) });
  }

  return {
    context: ctx,
    store,

    async startRun(raw: StartRunInput): Promise<{ run: RunRecord; created: boolean }> {
      const parsed = startRunSchema.safeParse(raw);
      if (!parsed.success) throw invalid("The run request is malformed.", parsed.error.issues);
      const { agent: slug, idempotencyKey, startedBy } = parsed.data;
      const agent = ctx.agents.get(slug);
      if (!agent)
        throw new AppError("NOT_FOUND", {
          message: `agent ${slug} not found`,
          userMessage: `There is no agent called "${slug}".`,
        });
      const parsedInput = agent.input.safeParse(parsed.data.input);
      if (!parsedInput.success)
        throw invalid(`The input does not match ${slug}'s input schema.`, parsedInput.error.issues);
      const input = { data: parsedInput.data ?? null }; // JSON has no undefined
      const id = ctx.ids.id("run");
      const state = newRunState(agent, input.data, parsed.data.budget);
      return store.createRun({
        id,
        agentSlug: slug,
        agentVersion: agent.version,
        input: input.data,
        state,
        idempotencyKey: idempotencyKey ?? null,
        startedBy: startedBy ?? null,
        parentRunId: null,
        workspaceId: parsed.data.workspaceId ?? enteredWorkspace() ?? DEFAULT_WORKSPACE_ID,
        events: [runCreatedEvent(agent, state, startedBy ?? null)],
      });
    },

    getRun,

    async findRuns(filter: { status?: string[]; agentSlug?: string; limit?: number; cursor?: string } = {}) {
      const status = filter.status?.filter((s): s is RunStatus => (RUN_STATUSES as readonly string[]).includes(s));
      return store.findRuns({ ...filter, status });
    },

    /** Fork a new run from a checkpoint of another (fork-run.ts). */
    forkRun: async (opts: { runId: string } & ForkOptions): Promise<RunRecord> =>
      forkRun(ctx, await getRun(opts.runId), opts),

    async cancelRun(opts: { runId: string; by: string; reason?: string; via?: string }): Promise<RunRecord> {
      return cancelRun(opts, false);
    },

    /** Make a parked run runnable now: a NEEDS_ATTENTION run once a person has settled every open packet. */
    async resumeRun(opts: { runId: string; by: string; via?: string }): Promise<RunRecord> {
      const open = await store.findPackets({ runId: opts.runId, status: ["PENDING"] });
      if (open.length > 0) {
        throw new AppError("CONFLICT", {
          message: `run ${opts.runId} has open packets`,
          userMessage: `Decide packet ${open[0].id} first; the run resumes from that decision.`,
        });
      }
      const run = await getRun(opts.runId);
      return store.transitionRun({
        runId: run.id,
        from: ["NEEDS_ATTENTION"],
        to: "QUEUED",
        audit: auditNote("runs.resume", run.id, opts),
        events: [{ type: "run.resumed", step: run.state.step, data: { by: opts.by } }],
      });
    },

    /** Make a FAILED run runnable again from its last checkpoint (retry-run.ts). */
    retryRun: async (opts: { runId: string } & RetryOptions): Promise<RunRecord> =>
      retryRun(ctx, await getRun(opts.runId), opts),

    /**
     * An explicit upgrade: the run continues on the newest loaded version of its agent, with its instructions
     * (a person's redirects kept). The state is kept as it is (a version whose state differs must say how to
     * read the old one); the change is a trace event and an audit row. A run parked because its version is
     * gone is upgraded by approving its version packet (the worker moves it); any other run not being
     * stepped right now is moved at once and queued, and re-waits on whatever it waited on.
     */
    async upgradeRun(opts: { runId: string; by: string; via?: string; bulk?: string }): Promise<RunRecord> {
      return upgradeRun(ctx, await getRun(opts.runId), opts);
    },

    /**
     * Upgrade every run of one version of an agent to the newest loaded version, in one audited action:
     * each run's move is its own audited transition (runs.upgrade, naming the bulk action); a run being
     * stepped at that moment, or that ended meanwhile, is reported as skipped, not waited for.
     */
    async upgradeVersion(opts: { slug: string; version: string; by: string; via?: string }): Promise<VersionUpgrade> {
      return upgradeVersion(ctx, opts);
    },

    async recoveryView(runId: string): Promise<RecoveryView> {
      const run = await getRun(runId);
      const [intents, packets] = await Promise.all([store.listIntents(runId), store.findPackets({ runId })]);
      return buildRecoveryView(run, intents, packets, ctx.clock.now(), ctx.agents.get(run.agentSlug)?.version);
    },

    decidePacket: (opts: DecidePacketOptions) => decidePacket(ctx, opts),
    checkUnknownOutcome: (opts: { packetId: string; workspaceId?: string | null }) => checkUnknownOutcome(ctx, opts),

    async assignPacket(opts: {
      packetId: string;
      by: string;
      queue?: string;
      assignee?: string | null;
      via?: string;
      workspaceId?: string | null;
    }): Promise<DecisionPacket> {
      const packet = await store.getPacket(opts.packetId, actingWorkspace(opts.workspaceId));
      if (!packet)
        throw new AppError("NOT_FOUND", {
          message: `packet ${opts.packetId} not found`,
          userMessage: "That decision packet does not exist.",
        });
      return store.assignPacket({
        packetId: packet.id,
        version: packet.version,
        queue: opts.queue,
        assignee: opts.assignee,
        audit: auditNote("packets.assign", packet.id, opts, {
          queue: opts.queue ?? packet.queue,
          assignee: opts.assignee ?? null,
        }),
        events: [
          {
            type: "gate.assigned",
            step: packet.step,
            data: {
              packetId: packet.id,
              by: opts.by,
              queue: opts.queue ?? packet.queue,
              assignee: opts.assignee ?? null,
            },
          },
        ],
      });
    },

    async deliverSignal(runId: string, raw: unknown) {
      const parsed = deliverSignalSchema.safeParse(raw);
      if (!parsed.success) throw invalid("The signal is malformed.", parsed.error.issues);
      return store.deliverSignal({ id: ctx.ids.id("sig"), runId, ...parsed.data, now: ctx.clock.now() });
    },

    permissions: {
      list: (agent?: string) => store.listPermissions({ agent }),
      history: (permissionId?: string) => store.listPermissionChanges({ permissionId }),
      /** `audit`: a person's change (lib/commands/put-permission.ts), written as "permissions.put" in the change's transaction. */
      async put(
        raw: unknown,
        opts: { by: string; expectedVersion?: number; audit?: { via?: string } },
      ): Promise<PermissionRule> {
        const parsed = permissionInputSchema.safeParse(raw);
        if (!parsed.success) throw invalid("The permission is malformed.", parsed.error.issues);
        const misplaced = misplacedConditions(parsed.data);
        if (Object.keys(misplaced).length > 0)
          throw new AppError("INVALID_INPUT", {
            message: "The permission is malformed.",
            userMessage: "A condition can skip the gate only on a rule that requires approval.",
            fieldErrors: misplaced,
          });
        const audit = opts.audit
          ? (saved: PermissionRule) =>
              auditNote(
                "permissions.put",
                saved.id,
                { by: opts.by, via: opts.audit?.via },
                { ...parsed.data, version: saved.version },
              )
          : undefined;
        const rule = await store.putPermission(
          { ...parsed.data, updatedBy: opts.by },
          { id: ctx.ids.id("perm"), auditId: ctx.ids.id("pchg"), expectedVersion: opts.expectedVersion, audit },
        );
        ctx.permissionCache.clear(); // what this process offers its agents follows its own change at once
        return rule;
      },
      /** `audit`: a person's change (lib/commands/remove-permission.ts), written as "permissions.remove" in the change's transaction. */
      async remove(id: string, by: string, opts: { audit?: { via?: string } } = {}) {
        const audit = opts.audit
          ? auditNote("permissions.remove", id, { by, via: opts.audit.via }, { permissionId: id })
          : undefined;
        await store.deletePermission({ id, changedBy: by, auditId: ctx.ids.id("pchg"), audit });
        ctx.permissionCache.clear();
      },
    },

    createWorker: (opts?: WorkerOptions) => createWorker(ctx, opts),
  };
}

export type Runtime = ReturnType<typeof createRuntime>;
