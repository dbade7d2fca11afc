"use client";

// Server errors reach the browser as a generic message plus a digest to find them in the server log.
export default function ConsoleError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : undefined;
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-white p-6">
      <h1 className="text-base font-semibold text-zinc-900">This page could not be loaded</h1>
      <p className="mt-1 text-sm text-zinc-600">
        The server hit an error{digest ? ` (reference ${digest})` : ""}. Check that the database is reachable and try
        again.
      </p>
      <button
        type="button"
        onClick={() => retry()}
        className="mt-4 rounded-md bg-zinc-900 px-3 py-1.5 text-sm text-white hover:bg-zinc-700"
      >
        Try again
      </button>
    </div>
  );
}
