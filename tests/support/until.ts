/** Polls `check` every 10 ms until it holds; fails naming `what` after `ms`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
