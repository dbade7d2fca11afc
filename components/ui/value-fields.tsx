import { humanize, isRecord } from "@/lib/inbox/schema-form";
import { JsonView } from "./json-view";

// A fact's or an argument's value as labelled fields, so a person reads "Amount cents 24000" rather than
// a truncated line of JSON. One level of nesting opens as fields too; deeper values, and lists of
// objects, keep their JSON (one click away).

function FieldValue({ value, depth }: { value: unknown; depth: number }) {
  if (isRecord(value)) return depth < 1 ? <ValueFields value={value} depth={depth + 1} /> : <JsonView value={value} />;
  if (Array.isArray(value)) {
    if (value.every((item) => item === null || typeof item !== "object"))
      return <>{value.length === 0 ? "none" : value.map((item) => String(item)).join(", ")}</>;
    return <JsonView value={value} label={`${value.length} item${value.length === 1 ? "" : "s"}`} />;
  }
  return <>{typeof value === "string" ? value : JSON.stringify(value)}</>;
}

export function ValueFields({ value, label, depth = 0 }: { value: unknown; label?: string; depth?: number }) {
  if (!isRecord(value)) {
    return (
      <span className="font-mono text-xs break-all text-zinc-900">
        <FieldValue value={value} depth={depth} />
      </span>
    );
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return <span className="text-xs text-zinc-500">empty</span>;
  return (
    <dl aria-label={label} className="grid grid-cols-[minmax(8rem,auto)_1fr] gap-x-4 gap-y-1.5 text-sm">
      {entries.map(([key, item]) => (
        <div key={key} className="contents">
          <dt className="text-zinc-600">
            {humanize(key)} <span className="font-mono text-xs text-zinc-500">{key}</span>
          </dt>
          <dd className="min-w-0 font-mono text-xs break-all text-zinc-900">
            <FieldValue value={item} depth={depth} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
