"use client";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ActionResult } from "@/lib/actions/define-action";

export type ActionOutcome = { tone: "success" | "error"; message: string; fieldErrors?: Record<string, string[]> };

/**
 * Calls one admin server action and turns its result into one message; on success the page's server
 * data is refreshed (router.refresh) so every list shows the change.
 */
export function useAdminAction<I, O>(
  action: (input: I) => Promise<ActionResult<O>>,
  opts: { success: (data: O) => string; onSuccess?: (data: O) => void; onOutcome?: (outcome: ActionOutcome) => void },
) {
  const router = useRouter();
  const [isPending, startTransition] = useTransition();
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);

  function run(input: I) {
    setOutcome(null);
    startTransition(async () => {
      let result: ActionResult<O>;
      try {
        result = await action(input);
      } catch {
        // The request itself failed (network, server restart): the action may not have run.
        const failure: ActionOutcome = {
          tone: "error",
          message: "The server could not be reached. Check your connection and try again.",
        };
        setOutcome(failure);
        opts.onOutcome?.(failure);
        return;
      }
      if (result.ok) {
        const success: ActionOutcome = { tone: "success", message: opts.success(result.data) };
        setOutcome(success);
        opts.onOutcome?.(success);
        opts.onSuccess?.(result.data);
        router.refresh();
      } else {
        const failure: ActionOutcome = { tone: "error", message: result.message, fieldErrors: result.fieldErrors };
        setOutcome(failure);
        opts.onOutcome?.(failure);
        if (result.code === "CONFLICT") router.refresh();
      }
    });
  }

  return { run, isPending, outcome, setOutcome };
}

/** The first error for a field, by its dotted path. */
export const fieldError = (outcome: ActionOutcome | null, path: string): string | null =>
  outcome?.fieldErrors?.[path]?.[0] ?? null;
