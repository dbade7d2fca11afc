// Reading an HTTP answer's body as JSON without trusting it to be JSON. Here, in the dependency-free client,
// so that the client and the server (its HTTP callers, stored JSON it must not trust) share it.

/** The text (an answer's body, a posted value) parsed as JSON; undefined when it is empty, absent or not JSON. */
export function tryParseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
