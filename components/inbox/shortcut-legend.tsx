/** The keyboard shortcuts of a page, small, under its content. */
export function ShortcutLegend({ shortcuts }: { shortcuts: Array<[string, string]> }) {
  return (
    <section aria-label="Keyboard shortcuts" className="mt-4 text-xs text-zinc-600">
      <h2 className="sr-only">Keyboard shortcuts</h2>
      <ul className="flex flex-wrap gap-x-4 gap-y-1">
        {shortcuts.map(([keys, action]) => (
          <li key={keys}>
            <kbd className="rounded border border-zinc-300 bg-white px-1 font-mono text-[11px] text-zinc-800">
              {keys}
            </kbd>{" "}
            {action}
          </li>
        ))}
      </ul>
    </section>
  );
}
