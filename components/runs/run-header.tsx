import { ConsoleLink } from "@/components/shell/console-links";
import type { ReactNode } from "react";
import { LabelledValue } from "@/components/ui/labelled-value";
import { Timestamp } from "@/components/ui/timestamp";
import type { RunRecord } from "@/lib/runtime/types";
import type { RunFamily } from "@/lib/queries/run-family";
import { LiveStatus, LiveUpdatedAt } from "./live/live-status";
import { RunFamilyLinks } from "./run-family";
import { RunIdLink } from "./run-id-link";

const Field = ({ label, children }: { label: string; children: ReactNode }) => (
  <LabelledValue label={label} className="mt-0.5 truncate text-sm text-zinc-800">
    {children}
  </LabelledValue>
);

export function RunHeader({
  run,
  now,
  actions,
  family,
}: {
  run: RunRecord;
  now: Date;
  actions?: ReactNode;
  family?: RunFamily;
}) {
  const isLeaseExpired = run.leaseExpiresAt !== null && run.leaseExpiresAt <= now;
  return (
    <header className="mb-6">
      <p className="text-xs text-zinc-500">
        <ConsoleLink href="/runs" className="hover:underline focus-visible:outline-2 focus-visible:outline-blue-600">
          Runs
        </ConsoleLink>{" "}
        /
      </p>
      <div className="mt-1 flex flex-wrap items-center gap-3">
        <h1 className="font-mono text-lg font-semibold text-zinc-900">{run.id}</h1>
        <LiveStatus />
      </div>
      {actions && <div className="mt-3">{actions}</div>}
      {run.error && (
        <p className="mt-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">{run.error}</p>
      )}
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-6">
        <Field label="Agent">
          {run.agentSlug}
          <span className="text-zinc-500">@{run.agentVersion}</span>
        </Field>
        <Field label="Created">
          <Timestamp value={run.createdAt} />
        </Field>
        <Field label="Updated">
          <LiveUpdatedAt />
        </Field>
        <Field label="Lease owner">
          {run.leaseOwner ?? <span className="text-zinc-500">none</span>}
          {run.leaseOwner && <span className="text-zinc-500"> · epoch {run.leaseEpoch}</span>}
        </Field>
        <Field label={isLeaseExpired ? "Lease expired" : "Lease expires"}>
          <Timestamp value={run.leaseExpiresAt} relativeTo={now} />
        </Field>
        <Field label="Waiting for">
          {run.waitingFor ??
            (run.wakeAt ? (
              <>
                wake <Timestamp value={run.wakeAt} relativeTo={now} />
              </>
            ) : (
              <span className="text-zinc-500">—</span>
            ))}
        </Field>
      </dl>
      {run.parentRunId && (
        <p className="mt-3 text-xs text-zinc-500">
          Forked from <RunIdLink runId={run.parentRunId} className="font-mono text-blue-700 hover:underline" />
        </p>
      )}
      {family && <RunFamilyLinks family={family} />}
      {run.compactedAt && (
        <p className="mt-3 text-xs text-zinc-500">
          Compacted <Timestamp value={run.compactedAt} relativeTo={now} /> by retention: its intermediate checkpoints
          and its trace events that are not audit were removed; the final state and the audit trail remain.
        </p>
      )}
    </header>
  );
}
