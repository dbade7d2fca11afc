import { z } from "zod";

// Helpers for reading Next.js searchParams, which may repeat a key.

export type SearchParams = Record<string, string | string[] | undefined>;

export function firstParam(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** An empty form field means "any": the GET form sends every field, filled or not. */
export const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

/**
 * A list page's filter, each field read with its schema: a value that does not parse is left out (that
 * filter is off) and named in `ignored`, so the page can say so instead of failing.
 */
export function parseFilterParams<Fields extends Record<string, z.ZodType>>(
  fields: Fields,
  params: SearchParams,
): { filter: { [K in keyof Fields]?: z.output<Fields[K]> }; ignored: Array<keyof Fields & string> } {
  const filter: { [K in keyof Fields]?: z.output<Fields[K]> } = {};
  const ignored: Array<keyof Fields & string> = [];
  for (const field of Object.keys(fields) as Array<keyof Fields & string>) {
    const parsed = fields[field].safeParse(firstParam(params[field]));
    if (parsed.success) Object.assign(filter, parsed.data === undefined ? {} : { [field]: parsed.data });
    else ignored.push(field);
  }
  return { filter, ignored };
}

/** A non-negative integer, or undefined for anything else. */
export function intParam(value: string | string[] | undefined): number | undefined {
  const text = firstParam(value);
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}
