// JSON for people: a one-line preview that opens into the pretty-printed document.

function stringify(value: unknown, indent?: number): string {
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v), indent) ?? String(value);
  } catch {
    return String(value);
  }
}

export function compactJson(value: unknown, max = 120): string {
  const text = stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

type JsonViewProps = { value: unknown; previewLength?: number; label?: string };

export function JsonView({ value, previewLength = 120, label }: JsonViewProps) {
  const preview = compactJson(value, previewLength);
  const isPrimitive = value === null || typeof value !== "object";
  if (isPrimitive && !label && !preview.endsWith("…")) {
    return <code className="font-mono text-xs break-all text-zinc-700">{preview}</code>;
  }
  return (
    <details className="min-w-0">
      <summary className="cursor-pointer font-mono text-xs break-all text-zinc-700 marker:text-zinc-400">
        {label ?? preview}
      </summary>
      <pre className="mt-1 max-h-96 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800">
        {stringify(value, 2)}
      </pre>
    </details>
  );
}
