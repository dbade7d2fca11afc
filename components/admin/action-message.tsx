import { Alert } from "@/components/ui/alert";
import type { ActionOutcome } from "./use-admin-action";

/** The outcome of an admin action, announced (errors assertively, successes politely). */
export function ActionMessage({ outcome }: { outcome: ActionOutcome | null }) {
  if (!outcome) return null;
  return <Alert tone={outcome.tone === "error" ? "error" : "success"}>{outcome.message}</Alert>;
}
