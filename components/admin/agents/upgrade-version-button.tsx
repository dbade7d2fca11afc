"use client";
import { useState, useTransition } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { upgradeVersionAction } from "@/lib/actions/runs";

/** Move every run of one version, not ended, to the newest version of its agent: one audited action. */
export function UpgradeVersionButton({
  slug,
  version,
  versionName,
  newestName,
  runs,
}: {
  slug: string;
  version: string;
  versionName: string;
  newestName: string;
  runs: number;
}) {
  const [isOpen, setOpen] = useState(false);
  const [isPending, startTransition] = useTransition();
  const [outcome, setOutcome] = useState<{ tone: "success" | "error"; message: string } | null>(null);

  function confirm() {
    startTransition(async () => {
      const result = await upgradeVersionAction({ slug, version });
      setOpen(false);
      if (!result.ok) return setOutcome({ tone: "error", message: result.message });
      const { upgraded, skipped } = result.data;
      setOutcome({
        tone: "success",
        message: `${upgraded} run${upgraded === 1 ? "" : "s"} moved to ${newestName}.${skipped.length ? ` ${skipped.length} skipped: ${skipped.map((s) => `${s.runId} (${s.reason})`).join("; ")}` : ""}`,
      });
    });
  }

  return (
    <div className="mt-1 space-y-1">
      {runs > 0 && (
        <Button variant="secondary" isBusy={isPending} onClick={() => setOpen(true)}>
          Upgrade {runs} run{runs === 1 ? "" : "s"} to {newestName}
        </Button>
      )}
      {outcome && <Alert tone={outcome.tone}>{outcome.message}</Alert>}
      <ConfirmDialog
        isOpen={isOpen}
        title={`Upgrade the runs of ${slug} ${versionName}?`}
        confirmLabel="Upgrade runs"
        isBusy={isPending}
        onConfirm={confirm}
        onCancel={() => setOpen(false)}
      >
        <p>
          Every run of version {versionName} that has not ended continues on {newestName}: its state is kept, the new
          version&apos;s instructions apply. A run a worker is stepping right now is skipped and listed. Each run&apos;s
          move and this action are on the audit log.
        </p>
      </ConfirmDialog>
    </div>
  );
}
