import { isRecord } from "./schema-form";

// What an edit changes, against the proposal: one entry per changed leaf ("amountCents: 24000 → 12000").
// Objects are walked; arrays and other values compare as a whole.

export type DiffEntry = { path: string; kind: "changed" | "added" | "removed"; before?: unknown; after?: unknown };

export function diffArgs(before: unknown, after: unknown, path = ""): DiffEntry[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => {
      const sub = path ? `${path}.${key}` : key;
      if (!(key in after) || after[key] === undefined)
        return key in before && before[key] !== undefined
          ? [{ path: sub, kind: "removed" as const, before: before[key] }]
          : [];
      if (!(key in before) || before[key] === undefined)
        return [{ path: sub, kind: "added" as const, after: after[key] }];
      return diffArgs(before[key], after[key], sub);
    });
  }
  return sameJson(before, after) ? [] : [{ path: path || "(arguments)", kind: "changed", before, after }];
}

function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "undefined";
}
