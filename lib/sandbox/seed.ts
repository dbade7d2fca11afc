import type { Db } from "@/lib/db";
import { resetFaults } from "./faults";

// The demo world's starting point. Ids are fixed so agents' example inputs work against it:
//   ord_1001  Ada Lovelace, $240.00 on card •4242 — the big refund that needs approval (ticket tkt_2001)
//   ord_1002  Ben Okafor, $18.50 — a small one an agent may refund on its own
//   ord_1003  Grace Hopper, $49.99, already partially refunded ($10.00)
//   ord_1004  Mallory Reyes, $129.00 (ticket tkt_2002) — her three earlier orders were all refunded
//   ord_1005  Chen Wei, $15.00 on card •0002, which declines every charge
//   ord_0930  Ada's earlier order, never refunded
// Docs: the refund policy, a release note and the pricing page (outreach research). No ledger rows:
// the ledger starts empty, so every row in it is an effect some caller applied.

const day = (iso: string) => new Date(iso);

const ORDERS = [
  {
    id: "ord_1001",
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amountCents: 24000,
    cardLast4: "4242",
    refundedCents: 0,
    createdAt: day("2026-11-30T09:12:00Z"),
  },
  {
    id: "ord_1002",
    customerEmail: "ben@example.com",
    customerName: "Ben Okafor",
    amountCents: 1850,
    cardLast4: "1881",
    refundedCents: 0,
    createdAt: day("2026-11-29T16:40:00Z"),
  },
  {
    id: "ord_1003",
    customerEmail: "grace@example.com",
    customerName: "Grace Hopper",
    amountCents: 4999,
    cardLast4: "5556",
    refundedCents: 1000,
    createdAt: day("2026-11-27T11:05:00Z"),
  },
  {
    id: "ord_1004",
    customerEmail: "mallory@example.com",
    customerName: "Mallory Reyes",
    amountCents: 12900,
    cardLast4: "0005",
    refundedCents: 0,
    createdAt: day("2026-11-28T19:30:00Z"),
  },
  {
    id: "ord_1005",
    customerEmail: "chen@example.com",
    customerName: "Chen Wei",
    amountCents: 1500,
    cardLast4: "0002",
    refundedCents: 0,
    createdAt: day("2026-11-30T14:02:00Z"),
  },
  {
    id: "ord_0988",
    customerEmail: "mallory@example.com",
    customerName: "Mallory Reyes",
    amountCents: 6000,
    cardLast4: "0005",
    refundedCents: 6000,
    createdAt: day("2026-10-22T10:00:00Z"),
  },
  {
    id: "ord_0972",
    customerEmail: "mallory@example.com",
    customerName: "Mallory Reyes",
    amountCents: 4500,
    cardLast4: "0005",
    refundedCents: 4500,
    createdAt: day("2026-09-14T13:20:00Z"),
  },
  {
    id: "ord_0951",
    customerEmail: "mallory@example.com",
    customerName: "Mallory Reyes",
    amountCents: 8900,
    cardLast4: "0005",
    refundedCents: 8900,
    createdAt: day("2026-08-03T08:45:00Z"),
  },
  {
    id: "ord_0930",
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amountCents: 3200,
    cardLast4: "4242",
    refundedCents: 0,
    createdAt: day("2026-06-18T17:30:00Z"),
  },
] as const;

const statusOf = (o: { amountCents: number; refundedCents: number }) =>
  o.refundedCents === 0 ? "paid" : o.refundedCents >= o.amountCents ? "refunded" : "partially_refunded";

/** The refunds behind the seeded refundedCents (made before any run: no keys, no ledger rows). */
const PAST_REFUNDS = ORDERS.filter((o) => o.refundedCents > 0).map((o) => ({
  id: `re_seed_${o.id.slice(4)}`,
  orderId: o.id,
  amountCents: o.refundedCents,
  cardLast4: o.cardLast4,
  createdAt: new Date(o.createdAt.getTime() + 3 * 86_400_000),
}));

const DOCS = [
  {
    id: "doc_refund_policy",
    title: "Refund policy",
    body:
      "Orders can be refunded in full or in part within 60 days of purchase, to the card they were paid with. " +
      "Support may issue refunds up to $100.00 on its own; larger refunds need a supervisor's approval. " +
      "A customer with three or more refunds in the last 180 days is reviewed for abuse before any further refund.",
    updatedAt: day("2026-10-01T09:00:00Z"),
  },
  {
    id: "doc_release_4_2",
    title: "Release 4.2: scheduled exports",
    body:
      "Release 4.2 adds scheduled exports: any report can be sent as CSV to an email list every day or week. " +
      "Exports of more than 100,000 rows are split into parts. Available on the Team and Business plans from December 8.",
    updatedAt: day("2026-11-25T15:00:00Z"),
  },
  {
    id: "doc_pricing",
    title: "Pricing",
    body: "Starter: $0 for up to 3 users. Team: $12 per user per month. Business: $29 per user per month, with SSO and audit logs.",
    updatedAt: day("2026-09-10T12:00:00Z"),
  },
];

const TICKETS = [
  {
    id: "tkt_2001",
    subject: "Refund for order ord_1001",
    body: "I cancelled order ord_1001 ($240.00) within the hour but my card ending 4242 was still charged. Please refund it.",
    status: "open",
    customerEmail: "ada@example.com",
    createdAt: day("2026-11-30T10:03:00Z"),
  },
  {
    id: "tkt_2002",
    subject: "Blender arrived cracked (ord_1004)",
    body: "The blender from order ord_1004 arrived cracked. I want my $129.00 back, like last time.",
    status: "open",
    customerEmail: "mallory@example.com",
    createdAt: day("2026-11-29T08:15:00Z"),
  },
];

/** Creates the starting world's records that are missing; leaves existing ones as they are. */
export async function seedSandbox(db: Db): Promise<void> {
  await db.$transaction(async (tx) => {
    for (const order of ORDERS) {
      await tx.sandboxOrder.upsert({
        where: { id: order.id },
        create: { ...order, currency: "usd", status: statusOf(order) },
        update: {},
      });
    }
    for (const refund of PAST_REFUNDS) {
      const { cardLast4, ...row } = refund;
      const response = JSON.stringify({
        refundId: row.id,
        orderId: row.orderId,
        amountCents: row.amountCents,
        status: "succeeded",
        cardLast4,
      });
      await tx.sandboxPayment.upsert({
        where: { id: row.id },
        create: { ...row, kind: "refund", status: "succeeded", response },
        update: {},
      });
    }
    for (const doc of DOCS) await tx.sandboxDoc.upsert({ where: { id: doc.id }, create: doc, update: {} });
    for (const ticket of TICKETS)
      await tx.sandboxTicket.upsert({ where: { id: ticket.id }, create: ticket, update: {} });
  });
}

/** Empties every sandbox table (ledger and fault knobs included), then seeds the starting world. */
export async function resetSandbox(db: Db): Promise<void> {
  await db.$transaction([
    db.sandboxLedgerEntry.deleteMany(),
    db.sandboxPayment.deleteMany(),
    db.sandboxMail.deleteMany(),
    db.sandboxDeploy.deleteMany(),
    db.sandboxDraft.deleteMany(),
    db.sandboxDoc.deleteMany(),
    db.sandboxTicket.deleteMany(),
    db.sandboxOrder.deleteMany(),
  ]);
  await resetFaults(db);
  await seedSandbox(db);
}
