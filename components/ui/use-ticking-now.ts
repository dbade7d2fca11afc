"use client";
import { useSyncExternalStore } from "react";

// One clock for every countdown on the page: a single interval while at least one component listens
// (a virtualised inbox of thousands of rows runs one timer, not one per row), stopped when none does.

const TICK_MS = 1_000;
const listeners = new Set<() => void>();
let nowMs = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!timer) {
    nowMs = Date.now();
    timer = setInterval(() => {
      nowMs = Date.now();
      for (const notify of listeners) notify();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** The shared clock's time; `serverNow` (the time the page was rendered) until the browser's clock takes over. */
export function useTickingNow(serverNow: Date): Date {
  const ms = useSyncExternalStore(
    subscribe,
    () => nowMs,
    () => serverNow.getTime(),
  );
  return new Date(ms);
}
