import { inspect } from "node:util";

// Tests wait on the thing they need (a store read, a process's output, a callback), never on the
// clock: a loaded machine makes every step slower, so a wait is a read in a loop with a generous
// ceiling, and a wait that does fail says what it last saw.

/** The longest a wait lasts before it fails. UNTIL_MS raises it on a machine known to be slow; a wait
 *  that passes its own ceiling gets the larger of the two. */
export const UNTIL_MS = Number(process.env.UNTIL_MS) || 20_000;

type Wait<T> = {
  /** What is awaited, for the failure: "the run completes". */
  what: string;
  /** When the value read is the one awaited; truthy by default. */
  holds?: (value: T) => boolean;
  ceilingMs?: number;
};

/** Time-outs say what they waited for and what they last saw; `last` is the value for a caller's own report. */
export class UntilTimeout extends Error {
  constructor(
    readonly what: string,
    readonly last: unknown,
    ms: number,
  ) {
    super(
      `timed out after ${ms} ms waiting until ${what}; last saw: ${inspect(last, { depth: 4, breakLength: Infinity })}`,
    );
  }
}

/**
 * Reads `read` every 10 ms until the value holds (truthy unless `holds` says otherwise) and returns
 * it; past the ceiling fails with `what` and the last value read. A read that throws fails at once.
 * The older form `until(what, check, ms?)` waits for a boolean.
 */
export async function until<T>(read: () => T | Promise<T>, wait: Wait<T>): Promise<T>;
export async function until(what: string, check: () => boolean | Promise<boolean>, ms?: number): Promise<boolean>;
export async function until<T>(
  a: string | (() => T | Promise<T>),
  b: Wait<T> | (() => T | Promise<T>),
  ms?: number,
): Promise<T> {
  const [read, wait] =
    typeof a === "string" ? [b as () => T | Promise<T>, { what: a, ceilingMs: ms }] : [a, b as Wait<T>];
  const ceiling = Math.max(wait.ceilingMs ?? 0, UNTIL_MS);
  const holds = wait.holds ?? ((value: T) => Boolean(value));
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() - started > ceiling) throw new UntilTimeout(wait.what, value, ceiling);
    await new Promise((r) => setTimeout(r, 10));
  }
}
