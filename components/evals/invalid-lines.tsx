/** The lines the server refused, one per item, so a person can find and fix each one. */
export function InvalidLines({ lines }: { lines: string[] }) {
  return (
    <section aria-labelledby="invalid-lines-title" className="rounded border border-red-300 bg-red-50 px-3 py-2">
      <h2 id="invalid-lines-title" className="text-sm font-medium text-red-900">
        Invalid lines
      </h2>
      <ul className="mt-1 max-h-64 list-disc space-y-0.5 overflow-auto pl-5 font-mono text-xs text-red-900">
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </section>
  );
}
