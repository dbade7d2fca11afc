"use client";
import { consoleHeaders } from "@/lib/fetch-json";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import type { EvalRunProgress as Progress } from "@/lib/queries/evals";
import { LIVE_INTERVAL_MS, queryKeys } from "@/lib/query-keys";

async function fetchProgress(id: string): Promise<Progress> {
  const response = await fetch(`/api/console/evals/runs/${encodeURIComponent(id)}`, {
    cache: "no-store",
    headers: consoleHeaders(),
  });
  if (!response.ok) throw new Error(`progress ${response.status}`);
  return (await response.json()) as Progress;
}

/**
 * While an eval run is RUNNING, poll its light progress route; when a trial lands or the run
 * finishes, re-render the page on the server (router.refresh) so scores and trials stay exact.
 */
export function EvalRunProgress({ id, initial }: { id: string; initial: Progress }) {
  const router = useRouter();
  const { data, isError } = useQuery({
    queryKey: [...queryKeys.evals.run(id), "progress"],
    queryFn: () => fetchProgress(id),
    initialData: initial,
    refetchInterval: (query) => (query.state.data?.status === "RUNNING" ? LIVE_INTERVAL_MS : false),
  });
  const seen = useRef(`${initial.status}:${initial.resultCount}`);
  useEffect(() => {
    const key = `${data.status}:${data.resultCount}`;
    if (key !== seen.current) {
      seen.current = key;
      router.refresh();
    }
  }, [data.status, data.resultCount, router]);

  if (data.status !== "RUNNING") return null;
  return (
    <div className="mb-4">
      <Alert tone="info" title="This eval run is still running">
        <p aria-live="polite">
          {data.resultCount} trial{data.resultCount === 1 ? "" : "s"} done so far, {data.passedCount} passed. The page
          updates as trials finish.
          {isError && " (Progress could not be refreshed; retrying.)"}
        </p>
      </Alert>
    </div>
  );
}
