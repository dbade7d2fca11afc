"use client";
import { ConsoleLink } from "@/components/shell/console-links";
import { useState, useTransition } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { replayVersionAction } from "@/lib/actions/agents";
import type { DifferingRun, VersionReplaySummary } from "@/lib/replay";

/** Replays one version's recent finished runs on the current code and tells what would act differently (docs/agents.md). */
export function ReplayVersionButton({
  slug,
  version,
  versionName,
}: {
  slug: string;
  version: string;
  versionName: string;
}) {
  const [isPending, startTransition] = useTransition();
  const [summary, setSummary] = useState<VersionReplaySummary | null>(null);
  const [error, setError] = useState<string | null>(null);

  function replay() {
    startTransition(async () => {
      const result = await replayVersionAction({ slug, version });
      setError(result.ok ? null : result.message);
      setSummary(result.ok ? result.data : null);
    });
  }

  return (
    <div className="mt-1 space-y-1">
      <Button size="sm" isBusy={isPending} onClick={replay} aria-label={`Replay recent runs of ${slug} ${versionName}`}>
        {isPending ? "Replaying…" : "Replay recent runs"}
      </Button>
      {error && <Alert tone="error">{error}</Alert>}
      {summary && (
        <Alert
          tone={summary.differ + summary.needsModel > 0 ? "warning" : "success"}
          title={summary.replayed === 0 ? "No finished runs of this version to replay." : summary.line}
        >
          {summary.differing.length > 0 && (
            <ul className="mt-1 space-y-2" aria-label={`Runs of ${slug} ${versionName} that act differently`}>
              {summary.differing.map((run) => (
                <DifferingRunItem key={run.runId} run={run} />
              ))}
            </ul>
          )}
        </Alert>
      )}
    </div>
  );
}

function DifferingRunItem({ run }: { run: DifferingRun }) {
  return (
    <li className="text-xs">
      <ConsoleLink href={`/runs/${encodeURIComponent(run.runId)}`} className="font-mono text-blue-700 hover:underline">
        {run.runId}
      </ConsoleLink>{" "}
      {run.verdict === "needs_model" ? (
        <>needs a model from step {run.step ?? "?"}: the recorded decisions stop matching there</>
      ) : (
        <>
          first differs at step {run.step ?? "?"} ({run.fields.join(", ") || "status"}); recorded {run.recordedStatus},
          replayed {run.replayedStatus}
        </>
      )}
      {run.verdict === "differs" && (
        <dl className="mt-0.5 grid grid-cols-[auto_1fr] gap-x-2 font-mono">
          <dt>recorded</dt>
          <dd>{run.recorded}</dd>
          <dt>replayed</dt>
          <dd>{run.replayed}</dd>
          {run.argsDiff.map((c) => (
            <div key={c.path} className="contents">
              <dt>args {c.path}</dt>
              <dd>
                {c.recorded} → {c.replayed}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {run.stopped && <p className="text-zinc-600">({run.stopped})</p>}
    </li>
  );
}
