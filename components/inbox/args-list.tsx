import { JsonView } from "@/components/ui/json-view";
import { humanize, isRecord } from "@/lib/inbox/schema-form";

/** The proposed arguments as labelled values (the raw JSON one click away). */
export function ArgsList({ args }: { args: unknown }) {
  if (!isRecord(args)) return <JsonView value={args} />;
  const entries = Object.entries(args);
  return (
    <>
      {entries.length === 0 ? (
        <p className="text-sm text-zinc-500">No arguments.</p>
      ) : (
        <dl aria-label="Arguments" className="grid grid-cols-[minmax(8rem,auto)_1fr] gap-x-4 gap-y-1.5 text-sm">
          {entries.map(([key, value]) => (
            <div key={key} className="contents">
              <dt className="text-zinc-600">
                {humanize(key)} <span className="font-mono text-xs text-zinc-500">{key}</span>
              </dt>
              <dd className="min-w-0 font-mono text-xs break-all text-zinc-900">
                {isRecord(value) || Array.isArray(value) ? <JsonView value={value} /> : JSON.stringify(value)}
              </dd>
            </div>
          ))}
        </dl>
      )}
      <details className="mt-3">
        <summary className="cursor-pointer text-xs text-zinc-600">Raw JSON</summary>
        <pre aria-label="Proposed arguments" className="mt-1 max-h-96 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800">
          {JSON.stringify(args, null, 2)}
        </pre>
      </details>
    </>
  );
}
