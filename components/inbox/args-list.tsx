import { ValueFields } from "@/components/ui/value-fields";
import { isRecord } from "@/lib/inbox/schema-form";

/** The proposed arguments as labelled values (the raw JSON one click away). */
export function ArgsList({ args }: { args: unknown }) {
  return (
    <>
      {isRecord(args) && Object.keys(args).length === 0 ? (
        <p className="text-sm text-zinc-500">No arguments.</p>
      ) : (
        <ValueFields value={args} label="Arguments" />
      )}
      <details className="mt-3">
        <summary className="cursor-pointer text-xs text-zinc-600">Raw JSON</summary>
        <pre
          aria-label="Proposed arguments"
          className="mt-1 max-h-96 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800"
        >
          {JSON.stringify(args, null, 2)}
        </pre>
      </details>
    </>
  );
}
