"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { compactJson } from "@/components/ui/json-view";
import { TextareaField } from "@/components/ui/labelled-fields";
import { statusLabel } from "@/components/ui/status-badge";
import { decidePacketsTogetherAction } from "@/lib/actions/packets";
import type { BulkResult } from "@/lib/inbox/decide-together";
import { describeDecisionError } from "@/lib/inbox/decision-errors";
import { canDecideTogether, type InboxItem } from "@/lib/inbox/queue";
import { queryKeys } from "@/lib/query-keys";
import { useRequiredText } from "./use-required-text";

type BulkDecideProps = { selected: InboxItem[]; onClear: () => void; onDecided: (ids: string[]) => void };

/** Approve or reject the selected packets of one tool: the confirmation lists every action, the results come back one per packet. */
export function BulkDecide({ selected, onClear, onDecided }: BulkDecideProps) {
  const queryClient = useQueryClient();
  const [isPending, startTransition] = useTransition();
  const [mode, setMode] = useState<"approve" | "reject" | null>(null);
  const reason = useRequiredText();
  const [results, setResults] = useState<{ items: Map<string, InboxItem>; results: BulkResult[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const isUniform = canDecideTogether(selected);

  function send() {
    const reasonGiven =
      mode === "reject" ? reason.take("Say why you reject them: each agent receives the reason.") : "";
    if (reasonGiven === null) return;
    const items = new Map(selected.map((item) => [item.id, item]));
    const packets = selected.map((item) => ({ packetId: item.id, digest: item.digest }));
    startTransition(async () => {
      const result = await decidePacketsTogetherAction(
        mode === "reject" ? { decision: "reject", packets, reason: reasonGiven } : { decision: "approve", packets },
      );
      void queryClient.invalidateQueries({ queryKey: queryKeys.packets.all });
      setMode(null);
      reason.reset();
      if (!result.ok) return setError(result.message);
      setError(null);
      setResults({ items, results: result.data });
      onDecided(result.data.filter((r) => r.ok).map((r) => r.packetId));
    });
  }

  return (
    <>
      {selected.length > 0 && (
        <div
          role="region"
          aria-label="Bulk decision"
          className="sticky top-0 z-10 mb-3 flex flex-wrap items-center gap-2 rounded-lg border border-blue-300 bg-blue-50 px-3 py-2 text-sm text-blue-950"
        >
          <span>{selected.length} selected</span>
          {isUniform ? (
            <>
              <Button size="sm" variant="primary" onClick={() => setMode("approve")}>
                Approve {selected.length} selected
              </Button>
              <Button size="sm" variant="danger" onClick={() => setMode("reject")}>
                Reject {selected.length} selected
              </Button>
            </>
          ) : (
            <span className="text-blue-950">
              Bulk decisions take packets of one tool only: select packets of the same tool.
            </span>
          )}
          <Button size="sm" variant="ghost" onClick={onClear}>
            Clear selection
          </Button>
        </div>
      )}
      {error && (
        <p role="alert" className="mb-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
          {error}
        </p>
      )}
      {results && (
        <section
          aria-label="Bulk decision results"
          className="mb-3 rounded-lg border border-zinc-200 bg-white p-3 text-sm"
        >
          <div className="mb-1 flex items-center justify-between">
            <h2 className="font-medium text-zinc-900">Results</h2>
            <Button size="sm" variant="ghost" onClick={() => setResults(null)}>
              Dismiss
            </Button>
          </div>
          <ul className="space-y-1">
            {results.results.map((r) => (
              <li key={r.packetId} className={r.ok ? "text-emerald-800" : "text-red-800"}>
                <span className="font-mono text-xs">{r.packetId}</span> — {results.items.get(r.packetId)?.impact}:{" "}
                {r.ok
                  ? statusLabel(r.status).toLowerCase()
                  : `${describeDecisionError(r.code, r.message).title} ${r.message}`}
              </li>
            ))}
          </ul>
        </section>
      )}
      <ConfirmDialog
        isOpen={mode !== null}
        title={mode === "reject" ? `Reject ${selected.length} actions?` : `Approve ${selected.length} actions?`}
        confirmLabel={mode === "reject" ? `Reject all ${selected.length}` : `Approve all ${selected.length}`}
        confirmVariant={mode === "reject" ? "danger" : "primary"}
        isBusy={isPending}
        onCancel={() => {
          setMode(null);
          reason.setError(null);
        }}
        onConfirm={send}
      >
        <p>Each packet is decided on its own, bound to exactly this action:</p>
        <ol aria-label="Actions to decide" className="mt-2 max-h-64 list-decimal space-y-1 overflow-auto pl-5">
          {selected.map((item) => (
            <li key={item.id}>
              <span className="text-zinc-900">{item.impact}</span>
              <span className="block font-mono text-xs text-zinc-600">
                {item.id} · {compactJson(item.args, 100)}
              </span>
            </li>
          ))}
        </ol>
        {mode === "reject" && (
          <TextareaField
            id="bulk-reason"
            label="Reason (each agent receives it)"
            className="mt-3"
            data-autofocus
            rows={2}
            {...reason.controlProps}
          />
        )}
      </ConfirmDialog>
    </>
  );
}
