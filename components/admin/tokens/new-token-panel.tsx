"use client";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";

/** The new token, once: it is not stored (only its hash is), so this is the only time it can be copied. */
export function NewTokenPanel({ name, token, onDone }: { name: string; token: string; onDone: () => void }) {
  const [copyState, setCopyState] = useState<"idle" | "copied" | "failed">("idle");
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => inputRef.current?.focus(), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(token);
      setCopyState("copied");
    } catch {
      // No clipboard permission: select it, so Ctrl/Cmd+C copies it.
      inputRef.current?.select();
      setCopyState("failed");
    }
  }

  return (
    <section aria-labelledby="new-token-title" className="mt-4 rounded border border-emerald-300 bg-emerald-50 p-3">
      <h3 id="new-token-title" className="text-sm font-semibold text-emerald-900">
        Copy the token “{name}” now
      </h3>
      <p className="mt-0.5 text-xs text-emerald-900">It is shown only this once: Tether keeps only a hash of it.</p>
      <div className="mt-2 flex gap-2">
        <label htmlFor="new-token-value" className="sr-only">
          New API token
        </label>
        <input
          ref={inputRef}
          id="new-token-value"
          readOnly
          value={token}
          onFocus={(e) => e.currentTarget.select()}
          className="block w-full rounded border border-emerald-400 bg-white px-2.5 py-1.5 font-mono text-sm text-zinc-900 focus:outline-2 focus:outline-blue-600"
        />
        <Button onClick={copy}>Copy</Button>
        <Button variant="ghost" onClick={onDone}>
          Done
        </Button>
      </div>
      <p role="status" className="mt-1 min-h-4 text-xs text-emerald-900">
        {copyState === "copied"
          ? "Copied to the clipboard."
          : copyState === "failed"
            ? "Could not copy: the token is selected, press Ctrl+C (⌘C)."
            : ""}
      </p>
    </section>
  );
}
