// Request bodies, read within limits: the one place every route that takes a body reads it (the HTTP
// API's defineRoute, the sandbox's parseBody, Auth.js's POST). A body larger than TETHER_MAX_BODY_BYTES
// (default 1 MiB) is refused before it is read when Content-Length says so, and otherwise as soon as the
// stream passes the limit (the rest is never read). JSON nested deeper than MAX_JSON_DEPTH is refused
// before JSON.parse, by a scan that counts brackets outside strings: no recursion, so no stack to blow.
// Each caller turns a BodyRejected into its own error shape (the API's AppError answer, the sandbox's wire error).

import { getConfig, type Config } from "@/lib/config";

export { DEFAULT_MAX_BODY_BYTES } from "@/lib/config";
export const MAX_JSON_DEPTH = 64;

export type BodyRejectedReason = "too_large" | "too_deep" | "not_json";

export class BodyRejected extends Error {
  readonly reason: BodyRejectedReason;

  constructor(reason: BodyRejectedReason, message: string) {
    super(message);
    this.name = "BodyRejected";
    this.reason = reason;
  }
}

/** TETHER_MAX_BODY_BYTES, a positive whole number of bytes; unset or invalid → 1 MiB (lib/config.ts logs an invalid one once). */
export function maxBodyBytes(config: Config = getConfig()): number {
  return config.server.maxBodyBytes;
}

const tooLarge = (limit: number) =>
  new BodyRejected("too_large", `The request body is larger than the limit of ${limit} bytes.`);

/** Refuses a body whose Content-Length is over the limit, before any of it is read. */
export function checkContentLength(request: Request, limit = maxBodyBytes()): void {
  const declared = request.headers.get("content-length")?.trim();
  if (declared && /^\d+$/.test(declared) && Number(declared) > limit) throw tooLarge(limit);
}

/** The body's bytes, at most `limit` of them: refused by Content-Length before reading, else while streaming. */
export async function readBodyBytes(request: Request, limit = maxBodyBytes()): Promise<Uint8Array<ArrayBuffer>> {
  checkContentLength(request, limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading: the rest of the upload is never pulled (the server drops it with the connection).
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** How deeply the JSON text nests arrays and objects, stopping as soon as it passes `max`. */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped (\" does not end the string)
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The body as JSON, within the size and depth limits. An empty or blank body is `{}`, so schemas name the missing fields. */
export async function readJsonBody(request: Request, limit = maxBodyBytes()): Promise<unknown> {
  const text = new TextDecoder().decode(await readBodyBytes(request, limit));
  if (text.trim() === "") return {};
  if (jsonDepthExceeds(text))
    throw new BodyRejected("too_deep", `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyRejected("not_json", "The request body is not valid JSON.");
  }
}

/**
 * Whether a parsed request value holds U+0000 anywhere (a string, an object key). Postgres refuses it in
 * text, so it is refused at the boundary as bad input (400) on both databases, before any query runs.
 */
export function holdsNulCharacter(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(holdsNulCharacter);
  if (value && typeof value === "object")
    return Object.entries(value).some(([key, item]) => key.includes("\u0000") || holdsNulCharacter(item));
  return false;
}
