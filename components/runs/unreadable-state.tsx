import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { Timestamp } from "@/components/ui/timestamp";
import type { UnreadableRunDetail } from "@/lib/queries/runs";

/** Enough of the stored text to see what is wrong without sending megabytes to the browser. */
const SHOWN_CHARS = 20_000;

/** What the run page shows in place of state, recovery and checkpoints when the stored state fails its schema. */
/** Indented when the text is JSON at all (most bad states are valid JSON that fails the schema). */
function readable(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function UnreadableState({ detail }: { detail: UnreadableRunDetail }) {
  const { checkpoints } = detail;
  const storedState = readable(detail.storedState);
  return (
    <div className="space-y-4">
      <Alert tone="error" title="This run's saved state could not be read">
        <p>{detail.stateError}</p>
        <p className="mt-1">
          The stored text is kept exactly as it is. The run cannot be resumed, retried or forked from here (a worker
          that meets it sets it aside as failed); its trace below is intact.
        </p>
      </Alert>
      <Card
        title="Stored state"
        description={
          storedState.length > SHOWN_CHARS
            ? `The first ${SHOWN_CHARS.toLocaleString("en-US")} of ${storedState.length.toLocaleString("en-US")} characters.`
            : "As stored (indented when it is JSON)."
        }
      >
        <pre className="max-h-96 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs break-all whitespace-pre-wrap text-zinc-800">
          {storedState.slice(0, SHOWN_CHARS)}
        </pre>
      </Card>
      <Card
        title="Checkpoints"
        description={`Where the run saved its state${detail.hasOlderCheckpoints ? ", the newest ones" : ""}; their states are not loaded.`}
      >
        <ol className="space-y-1 text-sm text-zinc-700">
          {checkpoints.map((c) => (
            <li key={c.seq}>
              <span className="font-mono">#{c.seq}</span> · step {c.step} · <Timestamp value={c.createdAt} />
            </li>
          ))}
        </ol>
      </Card>
    </div>
  );
}
