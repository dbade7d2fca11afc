"use client";
import { useState, type ChangeEvent } from "react";

/**
 * A text a reviewer must give before a decision is sent (a reason, an instruction): its value, and the
 * error that says it is missing, cleared as soon as they type. Spread `controlProps` on the textarea.
 */
export function useRequiredText() {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  return {
    error,
    setError,
    /** The trimmed text; null, with `missingMessage` shown, when there is none. */
    take(missingMessage: string): string | null {
      const trimmed = text.trim();
      setError(trimmed === "" ? missingMessage : null);
      return trimmed || null;
    },
    reset() {
      setText("");
      setError(null);
    },
    controlProps: {
      value: text,
      error,
      onChange(event: ChangeEvent<HTMLTextAreaElement>) {
        setText(event.target.value);
        setError(null);
      },
    },
  };
}
