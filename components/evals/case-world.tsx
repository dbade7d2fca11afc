import type { ReactNode } from "react";
import { JsonView } from "@/components/ui/json-view";
import { type Column, DataTable } from "@/components/ui/data-table";
import type { WorldSpec } from "@/lib/evals/spec";
import { formatUsd } from "./format";

// A case's world set-up: the sandbox orders and docs it starts with, the fault knobs, permission
// overrides, how the deploy system behaves, and what changes while the run waits for a person.
// Only what the case changes is shown; the rest is the sandbox's seeded world.
export function CaseWorld({ world }: { world: WorldSpec }) {
  const faults = Object.entries(world.faults);
  const isDeployDefault = world.deploy.outcome === "succeeded" && world.deploy.deliveries === 1;
  const changes =
    world.orders.length + world.docs.length + faults.length + world.permissions.length + world.whileWaiting.length;
  if (changes === 0 && isDeployDefault) {
    return (
      <p className="text-sm text-zinc-600">
        The sandbox&apos;s seeded world, unchanged: no extra orders or docs, no fault knobs, the agent&apos;s default
        permissions.
      </p>
    );
  }
  return (
    <div className="space-y-4 text-sm">
      {world.orders.length > 0 && (
        <Section title="Orders">
          <DataTable columns={ORDER_COLUMNS} rows={world.orders} rowKey={(order) => order.id} />
        </Section>
      )}
      {world.docs.length > 0 && (
        <Section title="Docs">
          <ul className="space-y-1">
            {world.docs.map((doc) => (
              <li key={doc.id}>
                <span className="font-mono text-xs">{doc.id}</span>{" "}
                {doc.title && <span className="font-medium">{doc.title}</span>}{" "}
                <span className="text-zinc-600">
                  — {doc.body.length > 160 ? `${doc.body.slice(0, 159)}…` : doc.body}
                </span>
              </li>
            ))}
          </ul>
        </Section>
      )}
      {faults.length > 0 && (
        <Section title="Fault knobs at the start">
          <ul className="space-y-1">
            {faults.map(([system, knobs]) => (
              <li key={system}>
                <span className="font-medium">{system}</span> <JsonView value={knobs} />
              </li>
            ))}
          </ul>
        </Section>
      )}
      {world.permissions.length > 0 && (
        <Section title="Permission overrides">
          <JsonView
            value={world.permissions}
            label={`${world.permissions.length} permission rule${world.permissions.length === 1 ? "" : "s"}`}
          />
        </Section>
      )}
      {!isDeployDefault && (
        <Section title="Deploy system">
          <p>
            Migrations {world.deploy.outcome === "never" ? "never finish" : world.deploy.outcome}; the finished callback
            is delivered {world.deploy.deliveries} time{world.deploy.deliveries === 1 ? "" : "s"}.
          </p>
        </Section>
      )}
      {world.whileWaiting.length > 0 && (
        <Section title="While the run waits for a person">
          <ul className="list-disc space-y-1 pl-5">
            {world.whileWaiting.map((op, i) => (
              <li key={i}>
                {op.op === "refund-elsewhere" ? (
                  <>
                    Order <span className="font-mono text-xs">{op.orderId}</span> is refunded elsewhere
                    {op.amountCents ? ` (${formatUsd(op.amountCents / 100)})` : ""}
                  </>
                ) : (
                  <>
                    Doc <span className="font-mono text-xs">{op.id}</span> is written{op.title ? `: ${op.title}` : ""}
                  </>
                )}
              </li>
            ))}
          </ul>
        </Section>
      )}
    </div>
  );
}

type Order = WorldSpec["orders"][number];

const ORDER_COLUMNS: Column<Order>[] = [
  { header: "Order", className: "font-mono text-xs", cell: (order) => order.id },
  {
    header: "Customer",
    cell: (order) => (
      <>
        {order.customerName} <span className="text-xs text-zinc-500">{order.customerEmail}</span>
      </>
    ),
  },
  {
    header: "Amount",
    align: "right",
    className: "tabular-nums",
    cell: (order) => `${formatUsd(order.amountCents / 100)} ${order.currency.toUpperCase()}`,
  },
  {
    header: "Already refunded",
    align: "right",
    className: "tabular-nums",
    cell: (order) => formatUsd(order.refundedCents / 100),
  },
  { header: "Card", className: "font-mono text-xs", cell: (order) => `•••• ${order.cardLast4}` },
];

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section>
      <h3 className="mb-1 text-xs font-semibold tracking-wide text-zinc-600 uppercase">{title}</h3>
      {children}
    </section>
  );
}

export function None() {
  return <p className="text-zinc-500">None.</p>;
}
