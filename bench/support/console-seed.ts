// The console at scale, as rows (bench/console-scale.ts): runs of several agents with inputs worth
// searching, pending packets over several queues, decided packets for the history, and a few long runs
// (thousands of trace events, hundreds of checkpoints) for the run page. Bulk inserts (multi-row INSERTs
// in transactions, see insertRows), never the engine: the shapes follow what the store writes (lib/store/*), so the console's
// reads parse them as they parse real ones. Deterministic: the same sizes give the same rows.
import { createHash } from "node:crypto";
import { providerOfDb, type Db } from "../../lib/db";
import type { Prisma } from "../../lib/generated/sqlite/client";
import { IMPACT_RANK, impactLevel } from "../../lib/runtime/impact";
import { initialState } from "../../lib/runtime/state";
import type { Capability, EffectSemantics, PacketKind } from "../../lib/runtime/types";
import { seededRandom } from "../../lib/sandbox/context";

export type SeedSizes = {
  /** pending packets (the inbox) */ packets: number;
  /** decided packets (the history) */ decided: number;
  /** runs in all, the long ones included */ runs: number;
  /** long runs, each with `bigEvents` trace events and `bigCheckpoints` checkpoints */ bigRuns: number;
  bigEvents: number;
  bigCheckpoints: number;
};

export type SeededConsole = {
  counts: Record<string, number>;
  seedMs: number;
  /** The reviewer the inbox is read as (assigned some packets). */
  me: string;
  reviewers: string[];
  bigRunIds: string[];
  /** Search texts that hit a few runs each (order ids, a customer's email) and ones that hit many. */
  search: { few: string[]; many: string[] };
};

export type ToolSpec = { name: string; capability: Capability; semantics: EffectSemantics };

export const TOOLS: ToolSpec[] = [
  { name: "payments.refund", capability: "execute", semantics: "idempotent" },
  { name: "mail.send", capability: "execute", semantics: "reconcilable" },
  { name: "deploys.run_migration", capability: "execute", semantics: "unsafe" },
  { name: "docs.search", capability: "read", semantics: "pure-read" },
  { name: "drafts.create", capability: "draft", semantics: "idempotent" },
  { name: "http.crm_update", capability: "execute", semantics: "idempotent" },
  { name: "mcp.okta.grant_role", capability: "execute", semantics: "reconcilable" },
  { name: "http.invoices_void", capability: "execute", semantics: "idempotent" },
];
const tool = (name: string) => TOOLS.find((t) => t.name === name)!;

const AGENTS: Array<{ slug: string; tools: string[] }> = [
  { slug: "refund-agent", tools: ["payments.refund", "mail.send"] },
  { slug: "deploy-agent", tools: ["deploys.run_migration", "docs.search"] },
  { slug: "outreach-agent", tools: ["mail.send", "drafts.create"] },
  { slug: "billing-agent", tools: ["http.invoices_void", "payments.refund"] },
  { slug: "access-agent", tools: ["mcp.okta.grant_role", "http.crm_update"] },
];
const QUEUES: Array<[string, number]> = [
  ["default", 0.4],
  ["attention", 0.15],
  ["finance", 0.2],
  ["ops", 0.15],
  ["security", 0.1],
];
const RUN_STATUSES: Array<[string, number]> = [
  ["COMPLETED", 0.86],
  ["FAILED", 0.08],
  ["CANCELLED", 0.03],
  ["NEEDS_ATTENTION", 0.005],
  ["RUNNING", 0.015],
  ["WAITING_EVENT", 0.01],
  ["QUEUED", 0.01],
];
const DECIDED: Array<[string, number]> = [
  ["APPROVED", 0.7],
  ["EDITED", 0.05],
  ["REJECTED", 0.15],
  ["REDIRECTED", 0.03],
  ["EXPIRED", 0.05],
  ["STALE", 0.02],
];
const REASONS = ["late delivery", "damaged item", "wrong size", "never arrived", "charged twice"];
const FIRST =
  "ana ben chloe dmitri emma farid grace hugo ines jonas kemi liam mei noah olga pablo quinn rosa sven tara".split(" ");
const LAST = ["garcia", "smith", "nguyen", "muller", "rossi", "kowalski", "silva", "tanaka", "okafor", "berg"];
const DOMAINS = ["gmail.com", "example.org", "acme.io", "fastmail.com", "outlook.com"];
const MIGRATIONS = [
  "add_index_orders_email",
  "drop_legacy_sessions",
  "backfill_invoice_totals",
  "split_customer_names",
  "add_refunds_ledger",
];
const SPAN_MS = 35 * 86_400_000; // the runs cover 35 days, ending QUIET_MS before `now`
/** Nothing seeded is newer than this before `now`: the change feed's first poll finds nothing (its overlap is seconds). */
const QUIET_MS = 10 * 60_000;
const BATCH = 2_000;
/** An INSERT's text at most (about): SQLite's limit is 1 GB, Postgres' larger; a few MB each keeps memory flat. */
const STATEMENT_CHARS = 2_000_000;
const TRANSACTION_MS = 300_000;

let rand = seededRandom(20261203);
const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
const weighted = (mix: Array<[string, number]>) => {
  let x = rand();
  for (const [value, share] of mix) if ((x -= share) < 0) return value;
  return mix[0][0];
};
/** The reviewers: reviewer@example.com (the demo account, whom the inbox is read as) and reviewer1..7. */
const reviewer = (k: number) => `reviewer${k % 8 || ""}@example.com`;
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const emailOf = (i: number) =>
  `${FIRST[i % 20]}.${LAST[Math.floor(i / 20) % 10]}${Math.floor(i / 200)}@${DOMAINS[i % 5]}`;
const EMAILS = 20_000; // distinct customers: ~3 runs each at 100,000 runs

/** A run's input: what its agent was asked, with the order ids and emails people search for. */
function inputOf(slug: string, i: number, email: string) {
  const orderId = `ord_${String(i).padStart(7, "0")}`;
  switch (slug) {
    case "refund-agent":
      return { orderId, customerEmail: email, reason: pick(REASONS), amountCents: 500 + Math.floor(rand() * 40_000) };
    case "deploy-agent":
      return {
        migration: pick(MIGRATIONS),
        environment: rand() < 0.7 ? "production" : "staging",
        ticket: `OPS-${1000 + (i % 9000)}`,
      };
    case "outreach-agent":
      return {
        customerEmail: email,
        campaign: pick(["winback", "renewal", "survey"]),
        note: `follow up on ${orderId}`,
      };
    case "billing-agent":
      return {
        invoiceId: `inv_${String(i).padStart(7, "0")}`,
        customerEmail: email,
        reason: pick(["duplicate invoice", "charged twice", "plan downgrade"]),
      };
    default:
      return {
        userEmail: email,
        role: pick(["billing-admin", "support-lead", "read-only"]),
        ticket: `SEC-${100 + (i % 900)}`,
      };
  }
}

/** A tool call's arguments and the impact sentence the packet shows (lib/tools' impact templates, roughly). */
function actionOf(
  name: string,
  input: Record<string, unknown>,
  i: number,
): { args: Record<string, unknown>; impact: string } {
  const email = String(input.customerEmail ?? input.userEmail ?? emailOf(i % EMAILS));
  const cents = Number(input.amountCents ?? 2_400);
  switch (name) {
    case "payments.refund":
      return {
        args: { orderId: input.orderId ?? `ord_${i}`, amountCents: cents },
        impact: `refunds $${(cents / 100).toFixed(2)} to card •${String(1000 + (i % 9000))}`,
      };
    case "mail.send":
      return {
        args: { to: email, subject: "About your order", body: "We are sorry for the trouble." },
        impact: `emails ${email}: "About your order"`,
      };
    case "deploys.run_migration":
      return {
        args: { migration: input.migration, environment: input.environment },
        impact: `runs migration ${String(input.migration)} on ${String(input.environment)}`,
      };
    case "docs.search":
      return { args: { query: "rollback procedure" }, impact: `searches the docs for "rollback procedure"` };
    case "drafts.create":
      return { args: { kind: "email", to: email }, impact: `drafts an email to ${email}` };
    case "http.crm_update":
      return { args: { customer: email, tier: "gold" }, impact: `updates customer ${email} in the CRM` };
    case "mcp.okta.grant_role":
      return { args: { user: email, role: input.role }, impact: `grants ${String(input.role)} to ${email}` };
    default:
      return {
        args: { invoiceId: input.invoiceId ?? `inv_${i}` },
        impact: `voids invoice ${String(input.invoiceId ?? `inv_${i}`)}`,
      };
  }
}

function contentOf(impact: string, evidenceKey: string, args: Record<string, unknown>, at: Date) {
  return {
    impact,
    reasoning: `The ${evidenceKey} lookup supports this; policy requires a person for this tool.`,
    uncertainty: rand() < 0.3 ? "The customer's last message is ambiguous about the amount." : undefined,
    evidence: [
      {
        key: evidenceKey,
        value: { ...args, status: "delivered" },
        kind: "observation",
        at: at.toISOString(),
        ageMs: 4_000,
        source: { tool: "orders.get", args },
      },
    ],
    options: ["approve", "edit", "reject", "redirect"],
  };
}

type RunRow = {
  id: string;
  agentSlug: string;
  agentVersion: string;
  status: string;
  input: string;
  state: string;
  stateSeq: number;
  entrySeq: number;
  eventSeq: number;
  createdAt: Date;
  updatedAt: Date;
};
type PacketRow = Prisma.DecisionPacketCreateManyInput;
type EventRow = { runId: string; seq: number; step: number; type: string; data: string; at: Date };

function packetOf(run: RunRow, id: string, step: number, createdAt: Date, i: number, kind: PacketKind): PacketRow {
  const agent = AGENTS.find((a) => a.slug === run.agentSlug)!;
  const spec = tool(agent.tools[i % agent.tools.length]);
  const { args, impact } = actionOf(spec.name, JSON.parse(run.input), i);
  const assigned = rand() < 0.3;
  return {
    id,
    runId: run.id,
    step,
    kind,
    tool: spec.name,
    args: JSON.stringify(args),
    digest: sha(`${run.id}:${step}:${spec.name}:${JSON.stringify(args)}`),
    status: "PENDING",
    requestedBy: `agent:${run.agentSlug}`,
    packet: JSON.stringify(contentOf(impact, "orders.get", args, createdAt)),
    queue: weighted(QUEUES),
    onExpire: "reject",
    expiresAt: null,
    decision: null,
    decidedBy: null,
    decidedAt: null,
    usedAt: null,
    assignee: assigned ? reviewer(Math.floor(rand() * 8)) : null,
    requiredApprovals: rand() < 0.05 ? 2 : 1,
    capability: spec.capability,
    impactRank: IMPACT_RANK[impactLevel(spec.name, spec, kind)],
    createdAt,
    changedAt: createdAt,
    version: 0,
  };
}

/**
 * Multi-row INSERTs in one transaction, the values written as SQL literals: bound parameters cost Prisma
 * about 5 µs each (minutes at this size), a long statement costs it nothing. Only the bench's own
 * generated values are written so (text quoted, '' for '), never anything typed by a person. Dates as
 * each database stores Prisma's DateTime (SQLite: ISO text with +00:00; Postgres: timestamp(3), UTC).
 * Every row names the same columns; a column left out takes its default.
 */
async function insertRows(db: Db, table: string, rows: object[]) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const isPostgres = providerOfDb(db) === "postgres";
  const literal = (value: unknown): string => {
    if (value === null || value === undefined) return "NULL";
    if (typeof value === "number") return String(value);
    const text =
      value instanceof Date
        ? isPostgres
          ? value.toISOString()
          : value.toISOString().replace("Z", "+00:00")
        : String(value);
    return `'${text.replaceAll("'", "''")}'`;
  };
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES `;
  const statements: string[] = [];
  let tuples: string[] = [];
  let size = 0;
  for (const row of rows as Array<Record<string, unknown>>) {
    const tuple = `(${columns.map((column) => literal(row[column])).join(", ")})`;
    tuples.push(tuple);
    size += tuple.length;
    if (size > STATEMENT_CHARS) {
      statements.push(head + tuples.join(", "));
      tuples = [];
      size = 0;
    }
  }
  if (tuples.length) statements.push(head + tuples.join(", "));
  // Interactive, for its timeout: a batch's transaction gets Prisma's 5 s, which a loaded machine can exceed.
  await db.$transaction(
    async (tx) => {
      for (const sql of statements) await tx.$executeRawUnsafe(sql);
    },
    { timeout: TRANSACTION_MS, maxWait: TRANSACTION_MS },
  );
}

/** Everything, in batches; returns what the bench needs to aim its queries. */
export async function seedConsole(db: Db, sizes: SeedSizes, now: Date): Promise<SeededConsole> {
  const t0 = performance.now();
  rand = seededRandom(20261203);
  const counts: Record<string, number> = {
    Run: 0,
    Checkpoint: 0,
    StateEntry: 0,
    TraceEvent: 0,
    EffectIntent: 0,
    "DecisionPacket PENDING": 0,
    "DecisionPacket decided": 0,
    PacketApproval: 0,
  };
  const regular = sizes.runs - sizes.bigRuns;
  if (regular < sizes.packets)
    throw new Error(
      `BENCH_RUNS (${sizes.runs}) must exceed BENCH_PACKETS + BENCH_BIG_RUNS: each pending packet waits in a run of its own`,
    );
  const spacing = SPAN_MS / regular;
  const end = now.getTime() - QUIET_MS;
  // The newest runs hold the pending packets (every other one in a window twice their number: about a week at full size).
  const window = Math.min(regular, sizes.packets * 2);
  const waiting = new Map<number, number>(); // run index → pending packet number
  for (let k = 0; k < sizes.packets; k++) waiting.set(regular - 1 - Math.floor((k * window) / sizes.packets), k);
  const emailUses = new Map<string, number>();
  let decidedCount = 0;
  const head = (slug: string, step: number, input: unknown) =>
    JSON.stringify({
      ...initialState({
        agent: { slug, version: "1", instructionsHash: "0".repeat(64) },
        instructions: "Do the task; ask before acting.",
        input,
      }),
      step,
    });

  for (let offset = 0; offset < regular; offset += BATCH) {
    const runs: RunRow[] = [];
    const packets: PacketRow[] = [];
    const events: EventRow[] = [];
    const approvals: Array<{ packetId: string; approver: string; at: Date }> = [];
    for (let i = offset; i < Math.min(regular, offset + BATCH); i++) {
      const slug = AGENTS[i % AGENTS.length].slug;
      const email = emailOf(Math.floor(rand() * EMAILS));
      emailUses.set(email, (emailUses.get(email) ?? 0) + 1);
      const input = inputOf(slug, i, email);
      const at = new Date(end - SPAN_MS + i * spacing);
      const pendingNo = waiting.get(i);
      const status = pendingNo !== undefined ? "WAITING_APPROVAL" : weighted(RUN_STATUSES);
      const run: RunRow = {
        id: `run_${i.toString(36).padStart(6, "0")}bench`,
        agentSlug: slug,
        agentVersion: "1",
        status,
        input: JSON.stringify(input),
        state: head(slug, 3, input),
        stateSeq: 1,
        entrySeq: 0,
        eventSeq: 0,
        createdAt: at,
        updatedAt: at,
      };
      const trace: Array<[string, number, Date, Record<string, unknown>]> = [
        ["run.created", 0, at, { agent: slug, version: "1", input }],
        ["model.decision", 0, new Date(at.getTime() + 1_000), { decision: { kind: "tool" } }],
      ];
      // The decided packets spread evenly over the runs (one each at the default sizes): the history, with what the run did next.
      for (let n = 0; decidedCount < Math.round(((i + 1) * sizes.decided) / regular); n++) {
        const created = new Date(at.getTime() + 20_000 + n * 60_000);
        const wait = Math.min(Math.exp(3 + rand() * 9) * 1000, Math.max(1_000, end - created.getTime())); // 20 s … 2 days, never after `end`
        const decidedAt = new Date(created.getTime() + wait);
        const p = packetOf(
          run,
          `pkt_d${String(decidedCount).padStart(7, "0")}`,
          1 + n * 2,
          created,
          i,
          rand() < 0.03 ? "UNKNOWN_OUTCOME" : "APPROVAL",
        );
        const outcome = weighted(DECIDED);
        const decider = Math.floor(rand() * 8);
        const by = outcome === "EXPIRED" ? "policy:expiry" : reviewer(decider);
        const decision = {
          decision:
            (
              { APPROVED: "approve", EDITED: "edit", REDIRECTED: "redirect", STALE: "approve" } as Record<
                string,
                string
              >
            )[outcome] ?? "reject",
          reason: outcome === "REJECTED" ? "amount does not match the order" : undefined,
        };
        packets.push({
          ...p,
          status: outcome,
          decision: JSON.stringify(decision),
          decidedBy: by,
          decidedAt,
          changedAt: decidedAt,
          version: 1,
          usedAt: outcome === "APPROVED" || outcome === "EDITED" ? decidedAt : null,
        });
        // Four eyes: the first reviewer's approval is a row of its own; the second one decided.
        if (p.requiredApprovals === 2 && outcome === "APPROVED")
          approvals.push(
            { packetId: p.id, approver: reviewer(decider + 1 + (i % 7)), at: new Date(decidedAt.getTime() - 1_000) },
            { packetId: p.id, approver: by, at: decidedAt },
          );
        trace.push(
          ["gate.requested", p.step, created, { packetId: p.id, tool: p.tool, impact: JSON.parse(p.packet).impact }],
          ["gate.decided", p.step, decidedAt, { packetId: p.id, tool: p.tool, by, ...decision }],
        );
        trace.push(["tool.call", p.step + 1, new Date(decidedAt.getTime() + 800), { tool: p.tool }]);
        decidedCount++;
      }
      if (pendingNo !== undefined) {
        const created = new Date(Math.min(end, Math.max(at.getTime() + 30_000, trace.at(-1)![2].getTime() + 1_000)));
        const p = packetOf(
          run,
          `pkt_p${String(pendingNo).padStart(6, "0")}`,
          4,
          created,
          i,
          rand() < 0.03 ? "UNKNOWN_OUTCOME" : "APPROVAL",
        );
        // 40% carry a deadline: a few already past (the sweeper has not run yet), most within three days.
        const expiresAt = rand() < 0.4 ? new Date(now.getTime() + (rand() * 74 - 2) * 3_600_000) : null;
        packets.push({ ...p, expiresAt, onExpire: expiresAt && rand() < 0.3 ? "escalate:attention" : "reject" });
        if (p.requiredApprovals === 2 && rand() < 0.5)
          approvals.push({ packetId: p.id, approver: reviewer(3), at: created });
        trace.push([
          "gate.requested",
          4,
          created,
          { packetId: p.id, tool: p.tool, impact: JSON.parse(p.packet).impact, queue: p.queue },
        ]);
      } else {
        const last = trace.at(-1)![2].getTime() + 700;
        trace.push(
          status === "COMPLETED"
            ? ["run.completed", 5, new Date(last), { output: { ok: true } }]
            : ["run.status", 5, new Date(last), { from: "RUNNING", to: status }],
        );
      }
      trace.forEach(([type, step, when, data], seq) =>
        events.push({ runId: run.id, seq: seq + 1, step, type, data: JSON.stringify(data), at: when }),
      );
      run.eventSeq = trace.length;
      run.updatedAt = trace.at(-1)![2];
      runs.push(run);
    }
    await insertRows(db, "Run", runs);
    // The runs list's step column: the latest checkpoint (runId, seq = stateSeq), one per run, as the store writes it.
    await insertRows(
      db,
      "Checkpoint",
      runs.map((r) => ({ runId: r.id, seq: 1, step: 3, state: r.state, entrySeq: 0, createdAt: r.createdAt })),
    );
    await insertRows(db, "TraceEvent", events);
    await insertRows(db, "DecisionPacket", packets);
    await insertRows(db, "PacketApproval", approvals);
    counts.Run += runs.length;
    counts.Checkpoint += runs.length;
    counts.TraceEvent += events.length;
    counts["DecisionPacket PENDING"] += packets.filter((p) => p.status === "PENDING").length;
    counts["DecisionPacket decided"] += packets.filter((p) => p.status !== "PENDING").length;
    counts.PacketApproval += approvals.length;
  }

  const bigRunIds: string[] = [];
  for (let b = 0; b < sizes.bigRuns; b++) bigRunIds.push(await seedBigRun(db, b, sizes, now, counts));

  const few = [...emailUses]
    .filter(([, n]) => n <= 3)
    .slice(0, 5)
    .map(([email]) => email);
  for (let k = 1; k <= 5; k++)
    few.push(`ord_${String(Math.floor((regular * k) / 6) - (Math.floor((regular * k) / 6) % 5)).padStart(7, "0")}`); // refund runs' order ids: one run each
  return {
    counts,
    seedMs: performance.now() - t0,
    me: "reviewer@example.com",
    reviewers: Array.from({ length: 8 }, (_, k) => reviewer(k)),
    bigRunIds,
    search: { few, many: ["charged twice", "gmail.com", "production", "follow up"] },
  };
}

/**
 * A long run: `bigCheckpoints` steps of `bigEvents / bigCheckpoints` trace events each, a fact and a
 * journal entry per step stored as StateEntry rows (the head holds neither, as lib/store/state-entries.ts
 * writes it), a checkpoint per step whose entrySeq is the entries it had, an intent every fifth step.
 */
async function seedBigRun(
  db: Db,
  b: number,
  sizes: SeedSizes,
  now: Date,
  counts: Record<string, number>,
): Promise<string> {
  const id = `run_big${b}_bench`;
  const steps = sizes.bigCheckpoints;
  const perStep = Math.max(1, Math.round(sizes.bigEvents / steps));
  const start = now.getTime() - (b + 1) * 6 * 3_600_000; // started hours ago, one step every few seconds
  const at = (step: number, k = 0) => new Date(start + step * 30_000 + k * 100);
  const input = {
    orderId: `ord_big${b}`,
    customerEmail: `big.customer${b}@example.org`,
    reason: "bulk reconciliation of 500 orders",
  };
  const base = initialState({
    agent: { slug: "refund-agent", version: "1", instructionsHash: "0".repeat(64) },
    instructions: "Reconcile every order in the batch.",
    input,
  });
  const headAt = (step: number) =>
    JSON.stringify({
      ...base,
      step,
      plan: [{ id: "reconcile", title: "Reconcile orders", status: step < steps ? "active" : "done" }],
      observations: Array.from({ length: Math.min(step, 20) }, (_, k) => ({
        step: step - k,
        kind: "tool_result",
        tool: "orders.get",
        message: `orders.get returned ord_${step - k}`,
        data: { orderId: `ord_${step - k}`, status: "delivered" },
      })),
      usage: { modelCalls: step, inputTokens: step * 1_800, outputTokens: step * 120, costUsd: step * 0.004 },
    });
  await insertRows(db, "Run", [
    {
      id,
      agentSlug: "refund-agent",
      agentVersion: "1",
      status: b === 0 ? "RUNNING" : "COMPLETED",
      input: JSON.stringify(input),
      state: headAt(steps),
      stateSeq: steps,
      entrySeq: steps * 2,
      eventSeq: steps * perStep,
      createdAt: at(0),
      updatedAt: at(steps),
    },
  ]);
  const types = [
    "model.decision",
    "permission.checked",
    "effect.intent",
    "tool.call",
    "evidence.rechecked",
    "run.status",
    "timer.set",
    "signal.consumed",
    "gate.acting",
    "tool.call",
  ];
  for (let from = 0; from < steps; from += 100) {
    const range = Array.from({ length: Math.min(100, steps - from) }, (_, k) => from + k + 1); // step numbers 1..steps
    const entries = range.flatMap((s) => [
      {
        runId: id,
        seq: s * 2 - 1,
        kind: "fact",
        key: null,
        value: JSON.stringify({
          id: `fact_${s}`,
          key: `orders.get.ord_${s}`,
          value: { orderId: `ord_${s}`, status: "delivered", amountCents: 1_000 + s },
          kind: "observation",
          at: at(s).toISOString(),
          step: s,
          expiresAt: null,
          source: { tool: "orders.get", args: { orderId: `ord_${s}` } },
        }),
      },
      { runId: id, seq: s * 2, kind: "journal", key: `clock.${s}`, value: JSON.stringify(at(s).toISOString()) },
    ]);
    await insertRows(db, "StateEntry", entries);
    await insertRows(
      db,
      "Checkpoint",
      range.map((s) => ({ runId: id, seq: s, step: s, state: headAt(s), entrySeq: s * 2, createdAt: at(s) })),
    );
    await insertRows(
      db,
      "TraceEvent",
      range.flatMap((s) =>
        Array.from({ length: perStep }, (_, k) => ({
          runId: id,
          seq: (s - 1) * perStep + k + 1,
          step: s,
          type: types[k % types.length],
          data: JSON.stringify({ tool: "orders.get", args: { orderId: `ord_${s}` }, note: `step ${s} event ${k}` }),
          at: at(s, k),
        })),
      ),
    );
    const intents = range
      .filter((s) => s % 5 === 0)
      .map((s) => ({
        id: `op_big${b}_${s}`,
        runId: id,
        step: s,
        tool: "orders.get",
        args: JSON.stringify({ orderId: `ord_${s}` }),
        semantics: "pure-read",
        status: "SUCCEEDED",
        result: JSON.stringify({ ok: true }),
        createdAt: at(s),
        completedAt: at(s, 1),
      }));
    await insertRows(db, "EffectIntent", intents);
    counts.StateEntry += entries.length;
    counts.Checkpoint += range.length;
    counts.TraceEvent += range.length * perStep;
    counts.EffectIntent += intents.length;
  }
  counts.Run++;
  return id;
}
