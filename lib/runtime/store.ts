import type { RunState } from "./state";
import type {
  Capability,
  DecisionPacket,
  EffectIntent,
  EffectSemantics,
  IntentStatus,
  Lease,
  PacketContent,
  PacketDecision,
  PacketKind,
  PacketStatus,
  PermissionRule,
  RunRecord,
  RunStatus,
  SignalRecord,
  StoredEntries,
  TraceEvent,
  TraceEventInput,
} from "./types";

// The engine's only door to storage (docs/architecture.md). One Prisma implementation serves SQLite and
// Postgres (lib/store); the contract suite in tests/ runs against both.
//
// Rules every implementation keeps:
// - a write made under a lease is fenced: it succeeds only while (runId, owner, epoch) still holds
//   the run, else it throws AppError("LEASE_LOST") and writes nothing;
// - trace events get consecutive per-run seq numbers, in the same transaction as the state they describe;
// - compare-and-set updates throw AppError("CONFLICT" | "PACKET_ALREADY_DECIDED") when they lose.

export type NewRun = {
  id: string;
  agentSlug: string;
  agentVersion: string;
  input: unknown;
  state: RunState;
  idempotencyKey: string | null;
  startedBy: string | null;
  parentRunId: string | null;
  /** The workspace that owns the run (lib/runtime/workspace.ts); its packets and audit rows are that workspace's too. */
  workspaceId: string;
  /** A child run: the parent run and the step that started it (children.ts). */
  spawnedByRunId?: string | null;
  spawnedAtStep?: number | null;
  events: TraceEventInput[];
  /** A person's change that creates the run (a fork), on the audit log in the run's own transaction. */
  audit?: AuditNote;
};

export type NewIntent = Pick<EffectIntent, "id" | "runId" | "step" | "tool" | "args" | "semantics"> & {
  decision: unknown;
};

export type NewPacket = Omit<
  DecisionPacket,
  "workspaceId" | "status" | "approvers" | "decision" | "decidedBy" | "decidedAt" | "usedAt" | "version" | "createdAt"
> & {
  /** The tool's declaration when the packet was asked (null: the registry does not know the tool); the inbox sorts and filters on it. */
  traits: { capability: Capability; semantics: EffectSemantics } | null;
};

/** A step carried to a later commit, as its checkpoint will hold it: its number, its state's head
 *  (state.ts stateHead), and how many facts and journal entries the state had then. */
export type CarriedStep = { step: number; head: string; entries: StoredEntries };

/** Everything one step writes, in one transaction, fenced by the lease. */
export type StepCommit = {
  lease: Lease;
  status: RunStatus;
  state: RunState;
  /** What of `state` is already stored (the claim's, then each commit's): only what came after is written. */
  storedEntries: StoredEntries;
  /** Steps carried into this commit (cursor.ts commitRead), oldest first: each gets its checkpoint too. */
  carried?: CarriedStep[];
  wakeAt?: Date | null;
  waitingFor?: string | null;
  error?: string | null;
  /** Give the run back (it waits for a person, an event or a timer, or it ended). */
  releaseLease?: boolean;
  events: TraceEventInput[];
  createIntent?: NewIntent;
  updateIntent?: { id: string; status: IntentStatus; attempt: number; result: unknown };
  createPacket?: NewPacket & { impactRank: number };
  /** Compare-and-set on the packet's version. */
  updatePacket?: {
    id: string;
    version: number;
    status?: PacketStatus;
    usedAt?: Date;
    queue?: string;
    expiresAt?: Date | null;
    onExpire?: string;
    content?: PacketContent;
    decision?: PacketDecision;
    decidedBy?: string;
  };
  consumeSignalIds?: string[];
  /** The run moves to another version of its agent (a person approved the upgrade of a run whose version is gone). */
  agentVersion?: string;
  /** The permission epoch the step's check read: the commit is refused (PERMISSIONS_CHANGED) if it moved since. */
  permissionEpoch?: number;
  /** Wake another run if it is parked on this event type, in this commit (a child's end wakes its parent,
   *  children.ts). No signal is stored: the woken run reads what it waits for. */
  wakeRun?: { runId: string; waitingFor: string };
};

export type CommitResult = { stateSeq: number; eventSeq: number };

export type Checkpoint = { seq: number; step: number; state: RunState; createdAt: Date };

/** A worker's lease on a run, with the run as it was claimed. */
export type Claim = { lease: Lease; run: RunRecord };

/** A run became runnable (no `at`), or becomes runnable at `at` (a timer); no runId: look anyway. */
export type Wakeup = { runId?: string; at?: Date };
export type RunnableListener = (wakeup: Wakeup) => void;

export type PacketFilter = {
  status?: PacketStatus[];
  runId?: string;
  queue?: string;
  assignee?: string;
  kind?: PacketKind;
  limit?: number;
};
export type RunFilter = {
  status?: RunStatus[];
  agentSlug?: string;
  agentVersion?: string;
  spawnedByRunId?: string;
  limit?: number;
  cursor?: string;
};

export type RuntimeStore = {
  createRun(run: NewRun): Promise<{ run: RunRecord; created: boolean }>;
  getRun(id: string): Promise<RunRecord | null>;
  findRuns(filter: RunFilter): Promise<RunRecord[]>;

  /** Claim one runnable run (or the named one) for `owner`: bumps the epoch, sets the expiry. */
  claimRun(opts: { owner: string; now: Date; leaseMs: number; runId?: string }): Promise<Claim | null>;
  /**
   * Claim up to `limit` runnable runs at once, the longest runnable first; rows other claimers hold are
   * skipped, and so are `exclude`: the runs the caller is still driving (a lease that lapsed while a
   * call was in flight must not get a second driver in the same process).
   */
  claimRuns(opts: { owner: string; now: Date; leaseMs: number; limit: number; exclude?: string[] }): Promise<Claim[]>;
  /** One heartbeat for every lease `owner` holds: returns the leases renewed; the others are lost. */
  renewLeases(owner: string, leases: Lease[], now: Date, leaseMs: number): Promise<Lease[]>;
  /** Give a run back; one that still has work is runnable at once (and workers are woken). */
  releaseLease(lease: Lease): Promise<void>;
  commitStep(commit: StepCommit): Promise<CommitResult>;
  /** When the next run not held by `owner` becomes claimable after `after` (a timer, a lease's expiry); null: none. */
  nextRunnableAt(opts: { owner: string; after: Date }): Promise<Date | null>;
  /**
   * Hear when a run becomes runnable: a new run, a decision, a signal, a run given back, a timer set
   * (in this process at once; on Postgres from every process, by LISTEN/NOTIFY). Returns unsubscribe.
   */
  onRunnable(listener: RunnableListener): () => void;

  /** A change made by a person or the API to a run nobody may be holding: CAS on the status. */
  transitionRun(opts: {
    /** The person's change on the audit log, written in the change's transaction. */
    audit?: AuditNote;
    runId: string;
    from: RunStatus[];
    to: RunStatus;
    events: TraceEventInput[];
    /** Fence out any worker still holding the run (cancel). */
    revokeLease?: boolean;
    /** A new state, with what of it is already stored (the run record's storedEntries). */
    state?: { state: RunState; storedEntries: StoredEntries };
    error?: string | null;
    /** An explicit upgrade (engine upgradeRun): the agent version the run continues with. */
    agentVersion?: string;
    /** Apply only to the run as it was read: this checkpoint, and no worker holding an unexpired lease
     *  (CONFLICT otherwise). For a change built on the state read, to a run that may be stepped meanwhile. */
    expect?: { stateSeq: number };
    /** Wake another run parked on this event type, in the same transaction (a cancelled child's parent). */
    wakeRun?: { runId: string; waitingFor: string };
  }): Promise<RunRecord>;

  listEvents(runId: string, opts?: { afterSeq?: number; limit?: number }): Promise<TraceEvent[]>;
  listCheckpoints(runId: string): Promise<Checkpoint[]>;
  getCheckpoint(runId: string, seq: number): Promise<Checkpoint | null>;
  getIntent(id: string): Promise<EffectIntent | null>;
  listIntents(runId: string): Promise<EffectIntent[]>;

  /** A packet of that workspace (null: of any, for the system); another workspace's is not there. */
  getPacket(id: string, workspaceId: string | null): Promise<DecisionPacket | null>;
  findPackets(filter: PacketFilter): Promise<DecisionPacket[]>;
  /**
   * Record a reviewer's decision: CAS on (id, PENDING, version). `approver` adds a distinct approval
   * (four eyes); `final` closes the packet and makes the run runnable again. Events go on the run's trace.
   */
  decidePacket(opts: {
    audit?: AuditNote;
    packetId: string;
    /** The packet's workspace, as the caller read it. */
    workspaceId: string;
    version: number;
    approver?: string;
    final?: { status: PacketStatus; decision: PacketDecision; decidedBy: string; now: Date };
    events: TraceEventInput[];
  }): Promise<DecisionPacket>;
  assignPacket(opts: {
    audit?: AuditNote;
    packetId: string;
    version: number;
    queue?: string;
    assignee?: string | null;
    events: TraceEventInput[];
  }): Promise<DecisionPacket>;

  /** Store a signal once per (run, dedupKey); wake the run if it waits for this type. */
  deliverSignal(opts: {
    id: string;
    runId: string;
    type: string;
    dedupKey: string;
    payload: unknown;
    now: Date;
  }): Promise<{ signal: SignalRecord; duplicate: boolean }>;
  listSignals(runId: string, opts?: { type?: string; unconsumed?: boolean }): Promise<SignalRecord[]>;

  listPermissions(opts?: { agent?: string }): Promise<PermissionRule[]>;
  /** The permission epoch: it moves with every permission change, in the change's transaction. */
  permissionEpoch(): Promise<number>;
  /** An agent's rules in a workspace and the epoch they were read at, as one consistent read. */
  listPermissionsAtEpoch(agent: string, workspaceId: string): Promise<{ epoch: number; rules: PermissionRule[] }>;
  /** Create or replace the rule for (agent, tool, step); versioned, with an audit row in the same transaction.
   *  Without capabilities it grants all four; without freshEvidence, false. */
  putPermission(
    rule: Omit<PermissionRule, "id" | "version" | "updatedAt" | "capabilities" | "freshEvidence"> &
      Partial<Pick<PermissionRule, "capabilities" | "freshEvidence">>,
    /** `audit`: a person's change, on the audit log in the same transaction (its note names the saved rule and version). */
    opts: { id: string; auditId: string; expectedVersion?: number; audit?: (saved: PermissionRule) => AuditNote },
  ): Promise<PermissionRule>;
  deletePermission(opts: { id: string; changedBy: string; auditId: string; audit?: AuditNote }): Promise<void>;
  listPermissionChanges(opts?: { permissionId?: string; limit?: number }): Promise<
    Array<{
      id: string;
      permissionId: string;
      version: number;
      before: unknown;
      after: unknown;
      changedBy: string;
      at: Date;
    }>
  >;

  close(): Promise<void>;
};

/**
 * A person's change (a decision, a cancel, a retry…) as a row of the audit log. The store writes it in
 * the change's own transaction: a change without its row, or a row without its change, cannot happen.
 */
export type AuditNote = { actor: string; action: string; target: string; data?: Record<string, unknown> };

/** A person's change as an audit note; `via` says through what (a token, MCP) when it was not the console. */
export function auditNote(
  action: string,
  target: string,
  who: { by: string; via?: string },
  data: Record<string, unknown> = {},
): AuditNote {
  return { actor: who.by, action, target, data: { ...data, ...(who.via ? { via: who.via } : {}) } };
}
