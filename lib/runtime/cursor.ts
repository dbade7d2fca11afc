import { childSignalType, notifyParent } from "./children";
import type { EngineContext } from "./context";
import { AppError } from "./errors";
import { appendObservation, stateHead, storedEntriesOf, type Fact, type Observation, type RunState } from "./state";
import { impactRankOf } from "./impact";
import type { CarriedStep, NewPacket, StepCommit } from "./store";
import type { Lease, PacketDecision, RunRecord, RunStatus, StoredEntries, TraceEventInput } from "./types";

// A worker's in-memory view of the run it holds. It never re-reads what it already holds under
// its lease: events are buffered and written with the state in one fenced commit.

export type StepOutcome = "continue" | "released";

/** What a step changes besides its state and events (the cursor adds those, the lease and its bookkeeping). */
type StepChange = Omit<StepCommit, "lease" | "state" | "storedEntries" | "carried" | "events" | "createPacket"> & {
  createPacket?: NewPacket;
};

export class RunCursor {
  readonly runId: string;
  status: RunStatus;
  state: RunState;
  private events: TraceEventInput[] = [];
  private lost = false;
  /** What of the state the store already has (facts and journal entries are written once each). */
  private storedEntries: StoredEntries;
  /** The permission epoch this step's check rested on (permission-check.ts); guards the step's next commit. */
  permissionEpoch: number | null = null;
  /** A child run's parent was looked at in this claim (children.ts endIfOrphaned). */
  parentChecked = false;
  /** This step asked a model: what it paid for is committed, whatever the step then does (commitRead). */
  paid = false;
  /** Steps done since the last commit and carried to the next one (with their checkpoints), and since when. */
  private carried: { steps: CarriedStep[]; since: number } | null = null;

  constructor(
    private readonly ctx: EngineContext,
    public lease: Lease,
    readonly run: RunRecord,
    /** The lease's length: a call is refused in its last quarter, when a renewal is already late. */
    private readonly leaseMs = 0,
  ) {
    this.runId = run.id;
    this.status = run.status;
    this.state = structuredClone(run.state);
    this.storedEntries = run.storedEntries;
  }

  /** The heartbeat found the lease gone (cancelled, or taken over after this worker stalled). */
  markLost() {
    this.lost = true;
  }

  /**
   * Called before anything that reaches outside (a tool call, a lookup). Writes are fenced by the
   * database, but a call is not: a worker frozen past its lease (GC pause, SIGSTOP, a partition) and
   * then resumed must not call a tool for a run another worker has taken over. The lease's expiry is
   * checked on this process's clock, with a margin, so a lapsed lease refuses before the heartbeat
   * has even noticed.
   */
  assertHeld() {
    const deadline = this.lease.expiresAt.getTime() - this.leaseMs / 4;
    if (this.lost || this.now().getTime() >= deadline) {
      throw new AppError("LEASE_LOST", {
        message: `worker ${this.lease.owner} let its lease on run ${this.runId} lapse (epoch ${this.lease.epoch}); it acts no more`,
        userMessage: "Another worker took over this run.",
      });
    }
  }

  /** The run's signals of this type not consumed yet, oldest first. */
  signals(type: string) {
    return this.ctx.store.listSignals(this.runId, { type, unconsumed: true });
  }

  get step() {
    return this.state.step;
  }

  now(): Date {
    return this.ctx.clock.now();
  }

  event(type: string, data: Record<string, unknown>) {
    this.events.push({ type, step: this.state.step, data });
  }

  observe(observation: Omit<Observation, "step">) {
    this.state.observations = appendObservation(this.state.observations, { ...observation, step: this.state.step });
  }

  /** `at`: when it was learned, if not now (an outside party's observation it made earlier). */
  addFact(
    fact: Omit<Fact, "id" | "at" | "step" | "expiresAt" | "source"> &
      Partial<Pick<Fact, "expiresAt" | "source" | "at">>,
  ): Fact {
    // Keys in the schema's order, the order a fact has once loaded: a fact serializes to the same JSON
    // whether it was just made or read back (a state rebuilt from its entries is byte for byte the same).
    const full: Fact = {
      id: this.ctx.ids.id("fact"),
      key: fact.key,
      value: fact.value,
      kind: fact.kind,
      at: fact.at ?? this.now().toISOString(),
      step: this.state.step,
      expiresAt: fact.expiresAt ?? null,
      source: fact.source ?? {},
    };
    this.state.facts.push(full);
    return full;
  }

  /** A decision on a packet (a person's, or the expiry's), kept as the fact `decision:<packet id>`. */
  addDecisionFact(packetId: string, decision: PacketDecision, by: string | undefined): Fact {
    return this.addFact({ key: `decision:${packetId}`, value: decision, kind: "decision", source: { by, packetId } });
  }

  /** The action of this step is settled: the next decision is a new step. */
  finishStep() {
    this.state.pending = null;
    this.state.step += 1;
  }

  /**
   * A pure read's result. Committed now, or carried to the next commit when redoing the step costs nothing: a
   * read changes nothing outside, and a policy that asked no model decides the same again for free. A crash
   * then loses only such steps (at most maxSteps; the first step to end maxMs after the first of them commits
   * them all, so a slow read holds them while it runs): the run redoes them, and whatever acts
   * on the world (an intent, an approval request, a park, the end) commits them first, in its own commit.
   */
  commitRead(): Promise<StepOutcome> {
    const limit = this.ctx.carryReads;
    const now = performance.now();
    const carried = this.carried ?? { steps: [], since: now };
    if (!limit || this.paid || carried.steps.length + 1 >= limit.maxSteps || now - carried.since >= limit.maxMs)
      return this.commit({ status: "RUNNING" });
    // Its checkpoint as its own commit would have written it: every step keeps one (forks start from any).
    carried.steps.push({ step: this.state.step, head: stateHead(this.state), entries: storedEntriesOf(this.state) });
    this.carried = carried;
    this.enter("RUNNING"); // as its own commit would have
    return Promise.resolve("continue");
  }

  /** Give the run back between steps (a turn for others, a graceful stop), with the steps it carries. */
  async release(): Promise<void> {
    if (this.carried) await this.commit({ status: "RUNNING", releaseLease: true });
    else await this.ctx.store.releaseLease(this.lease);
  }

  /** Write state, checkpoint and buffered events in one fenced transaction. */
  async commit(change: StepChange): Promise<StepOutcome> {
    this.enter(change.status, change.error);
    const events = this.events;
    this.events = [];
    // What follows a check (a read's result, an intent, an approval request, a refusal) is written only
    // while the permissions are still the ones checked; the commits after it record what already happened.
    const guarded = this.permissionEpoch !== null;
    const { createPacket, ...rest } = change;
    await this.ctx.store.commitStep({
      ...rest,
      // The inbox sorts on the packet's impact: the engine's rule, stored with the packet.
      ...(createPacket ? { createPacket: { ...createPacket, impactRank: impactRankOf(createPacket) } } : {}),
      lease: this.lease,
      state: this.state,
      storedEntries: this.storedEntries,
      ...(this.carried ? { carried: this.carried.steps } : {}),
      events,
      ...(guarded ? { permissionEpoch: this.permissionEpoch! } : {}),
    });
    this.storedEntries = storedEntriesOf(this.state);
    this.carried = null;
    this.paid = false;
    if (guarded) this.permissionEpoch = null;
    return change.releaseLease ? "released" : "continue";
  }

  /** The run's status changes with the next commit, and an event in it says so. */
  private enter(status: RunStatus, error?: string | null) {
    if (status === this.status) return;
    const transition = { type: "run.status", data: { from: this.status, to: status, ...(error ? { error } : {}) } };
    // Resuming reads first (then what the run did); parking or ending reads last (what led to it).
    if (status === "RUNNING") this.events.unshift({ ...transition, step: this.events[0]?.step ?? this.state.step });
    else this.events.push({ ...transition, step: this.events.at(-1)?.step ?? this.state.step });
    this.status = status;
  }

  /** Park the run: it waits for a person, an event or a timer; the lease goes back. */
  park(status: RunStatus, extra: Omit<StepChange, "status" | "releaseLease"> = {}) {
    return this.commit({ ...extra, status, releaseLease: true });
  }

  async finish(status: "COMPLETED" | "FAILED" | "CANCELLED", error?: string) {
    this.state.pending = null;
    // A child run: its parent waits for this. Woken in the commit itself (so a crash right after cannot lose
    // it), and told by a signal after it (which a parent parking at this very moment sees: children.ts).
    const parent = this.run.spawnedByRunId;
    const outcome = await this.commit({
      status,
      releaseLease: true,
      error: error ?? null,
      ...(parent ? { wakeRun: { runId: parent, waitingFor: childSignalType(this.runId) } } : {}),
    });
    if (parent) await notifyParent(this.ctx, this.run, status);
    return outcome;
  }
}
