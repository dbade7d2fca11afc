"use client";
import { EVENT_KIND_LABEL, EVENT_KINDS, type EventKind } from "./trace-model";

type TimelineFiltersProps = {
  kinds: ReadonlySet<EventKind>;
  counts: Record<EventKind, number>;
  text: string;
  onToggleKind: (kind: EventKind) => void;
  onText: (text: string) => void;
};

export function TimelineFilters({ kinds, counts, text, onToggleKind, onText }: TimelineFiltersProps) {
  return (
    <div className="mb-3 flex flex-wrap items-end gap-x-6 gap-y-3">
      <fieldset className="min-w-0">
        <legend className="mb-1 text-sm font-medium text-zinc-800">Event kinds</legend>
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {EVENT_KINDS.map((kind) => (
            <label key={kind} className="inline-flex items-center gap-1.5 text-sm text-zinc-700">
              <input
                type="checkbox"
                checked={kinds.has(kind)}
                onChange={() => onToggleKind(kind)}
                className="size-4 rounded border-zinc-300 accent-blue-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
              />
              {EVENT_KIND_LABEL[kind]} <span className="text-xs text-zinc-500 tabular-nums">({counts[kind]})</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="w-64">
        <label htmlFor="trace-filter-text" className="mb-1 block text-sm font-medium text-zinc-800">
          Filter events
        </label>
        <input
          id="trace-filter-text"
          type="search"
          value={text}
          onChange={(e) => onText(e.target.value)}
          placeholder="tool, person, key, error…"
          className="block w-full rounded border border-zinc-300 bg-white px-2.5 py-1.5 text-sm text-zinc-900 shadow-xs focus:outline-2 focus:outline-offset-0 focus:outline-blue-600"
        />
      </div>
    </div>
  );
}
