// A structural diff of two JSON documents (two checkpoints' states): what was added, removed or
// changed, at which path. Objects are compared key by key; arrays index by index, except arrays of
// objects with an `id` (facts, plan items, risks), which are matched by id so an insertion does not
// read as every later element changing.

export type JsonPath = Array<string | number>;
export type DiffEntry =
  | { op: "added"; path: JsonPath; after: unknown }
  | { op: "removed"; path: JsonPath; before: unknown }
  | { op: "changed"; path: JsonPath; before: unknown; after: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function idOf(value: unknown): string | null {
  return isObject(value) && (typeof value.id === "string" || typeof value.id === "number") ? String(value.id) : null;
}

function isKeyedArray(a: unknown[], b: unknown[]): boolean {
  const all = [...a, ...b];
  if (all.length === 0 || !all.every((v) => idOf(v) !== null)) return false;
  return new Set(a.map(idOf)).size === a.length && new Set(b.map(idOf)).size === b.length;
}

export function diffJson(before: unknown, after: unknown, path: JsonPath = []): DiffEntry[] {
  if (Object.is(before, after)) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    if (isKeyedArray(before, after)) {
      const beforeById = new Map(before.map((v) => [idOf(v)!, v]));
      const afterIds = new Set(after.map(idOf));
      const out: DiffEntry[] = before
        .filter((v) => !afterIds.has(idOf(v)))
        .map((v) => ({ op: "removed", path: [...path, `[id=${idOf(v)}]`], before: v }));
      for (const value of after) {
        const id = idOf(value)!;
        const old = beforeById.get(id);
        if (old === undefined) out.push({ op: "added", path: [...path, `[id=${id}]`], after: value });
        else out.push(...diffJson(old, value, [...path, `[id=${id}]`]));
      }
      return out;
    }
    const out: DiffEntry[] = [];
    const length = Math.max(before.length, after.length);
    for (let i = 0; i < length; i++) {
      if (i >= before.length) out.push({ op: "added", path: [...path, i], after: after[i] });
      else if (i >= after.length) out.push({ op: "removed", path: [...path, i], before: before[i] });
      else out.push(...diffJson(before[i], after[i], [...path, i]));
    }
    return out;
  }
  if (isObject(before) && isObject(after)) {
    const out: DiffEntry[] = [];
    for (const key of Object.keys(before)) {
      if (!(key in after) || after[key] === undefined) {
        if (before[key] !== undefined) out.push({ op: "removed", path: [...path, key], before: before[key] });
      } else out.push(...diffJson(before[key], after[key], [...path, key]));
    }
    for (const key of Object.keys(after)) {
      if ((!(key in before) || before[key] === undefined) && after[key] !== undefined)
        out.push({ op: "added", path: [...path, key], after: after[key] });
    }
    return out;
  }
  return [{ op: "changed", path, before, after }];
}

/** "facts[id=fact_1].value.amountCents" */
export function formatPath(path: JsonPath): string {
  if (path.length === 0) return "(root)";
  return path
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : part.startsWith("[") ? part : i === 0 ? part : `.${part}`,
    )
    .join("");
}
