// Helpers for reading Next.js searchParams, which may repeat a key.

export type SearchParams = Record<string, string | string[] | undefined>;

export function firstParam(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A non-negative integer, or undefined for anything else. */
export function intParam(value: string | string[] | undefined): number | undefined {
  const text = firstParam(value);
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}
