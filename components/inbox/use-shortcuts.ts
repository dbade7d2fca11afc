"use client";
import { useEffect, useRef } from "react";
import { shortcutKey } from "@/lib/inbox/shortcuts";

/** Binds single-key shortcuts on the window; handlers are read fresh on every key press. */
export function useShortcuts(handlers: Record<string, (() => void) | undefined>, isEnabled = true) {
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => {
    if (!isEnabled) return;
    function onKeyDown(event: KeyboardEvent) {
      const key = shortcutKey(event, document.querySelector("dialog[open]") !== null);
      const handler = key ? ref.current[key] : undefined;
      if (!handler) return;
      event.preventDefault();
      handler();
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [isEnabled]);
}
