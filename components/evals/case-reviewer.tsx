import { Badge } from "@/components/ui/badge";
import { JsonView } from "@/components/ui/json-view";
import type { ReviewerAnswer } from "@/lib/evals/spec";
import { formatMs } from "./format";

const DECISION_TONES = {
  approve: "green",
  edit: "blue",
  reject: "red",
  redirect: "violet",
  happened: "green",
  retry: "sky",
  skip: "gray",
  none: "gray",
} as const;

/** The scripted reviewer: how the harness answers each decision packet, in order. */
export function CaseReviewer({ answers }: { answers: ReviewerAnswer[] }) {
  if (answers.length === 0)
    return <p className="text-sm text-zinc-500">No scripted answers: the journey should not need a person.</p>;
  return (
    <ol className="space-y-2 text-sm">
      {answers.map((answer, i) => (
        <li key={i} className="flex flex-wrap items-baseline gap-2 rounded border border-zinc-200 px-3 py-2">
          <span className="text-xs text-zinc-500">Packet {i + 1}</span>
          <Badge tone={DECISION_TONES[answer.decision]}>{answer.decision}</Badge>
          {answer.tool && <span className="font-mono text-xs">{answer.tool}</span>}
          {answer.kind && (
            <span className="text-xs text-zinc-600">({answer.kind.toLowerCase().replaceAll("_", " ")})</span>
          )}
          <span className="text-xs text-zinc-600">
            by {answer.by === "$requester" ? "the requester (a self-approval the engine must refuse)" : answer.by}
            {answer.delayMs > 0 && ` after ${formatMs(answer.delayMs)}`}
          </span>
          {answer.reason && <span className="w-full text-zinc-700">“{answer.reason}”</span>}
          {answer.instruction && <span className="w-full text-zinc-700">Instruction: {answer.instruction}</span>}
          {answer.args !== undefined && (
            <span className="w-full">
              <JsonView value={answer.args} label="Edited arguments" />
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}
