"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { useWorkspaceHref } from "@/components/shell/console-links";
import type { ActionResult } from "@/lib/actions/define-action";
import { queryKeys } from "@/lib/query-keys";

export type RunActionOutcome = { tone: "success" | "error"; message: string };

/**
 * Runs one server action, turns its result into one message, refreshes the page (or goes elsewhere) on
 * success. The run's live view refetches too: a finished run's timeline stopped polling, and a retried
 * or resumed run must be followed again.
 */
export function useRunAction() {
  const router = useRouter();
  const inWorkspace = useWorkspaceHref();
  const queryClient = useQueryClient();
  const [isPending, startTransition] = useTransition();
  const [outcome, setOutcome] = useState<RunActionOutcome | null>(null);

  function run<T>(
    call: () => Promise<ActionResult<T>>,
    onSuccess: (data: T) => { message: string; goTo?: string },
    onDone?: () => void,
  ) {
    startTransition(async () => {
      const result = await call();
      onDone?.();
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs.all });
      if (!result.ok) {
        setOutcome({ tone: "error", message: result.message });
        router.refresh(); // a lost race (someone else acted first) shows the run as it is now
        return;
      }
      const { message, goTo } = onSuccess(result.data);
      setOutcome({ tone: "success", message });
      if (goTo) router.push(inWorkspace(goTo));
      else router.refresh();
    });
  }

  return { run, isPending, outcome };
}
