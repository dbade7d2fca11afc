import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { actionDigest, canonicalJson, operationId, sha256 } from "../../lib/runtime/canonical";

/** canonicalJson as first written: digests already stored (packets, recorded decisions) rest on its output. */
function firstCanonicalJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === "object" && !(v instanceof Date)) {
      const record = v as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(record)
          .filter((k) => record[k] !== undefined)
          .sort()
          .map((k) => [k, sortKeys(record[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sortKeys(value));
}

describe("canonicalJson", () => {
  it("does not depend on key order, at any depth", () => {
    const a = { b: 1, a: { y: [{ q: 1, p: 2 }], x: { n: null, m: "s" } } };
    const b = { a: { x: { m: "s", n: null }, y: [{ p: 2, q: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":{"m":"s","n":null},"y":[{"p":2,"q":1}]},"b":1}');
  });

  it("keeps array order", () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("drops undefined properties at any depth", () => {
    expect(canonicalJson({ a: 1, b: undefined, c: { d: undefined, e: 2 } })).toBe('{"a":1,"c":{"e":2}}');
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it("distinguishes null from a missing property", () => {
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });

  it("serializes dates and primitives as JSON does", () => {
    const at = new Date("2025-01-01T00:00:00.000Z");
    expect(canonicalJson({ at })).toBe('{"at":"2025-01-01T00:00:00.000Z"}');
    expect(canonicalJson("x")).toBe('"x"');
    expect(canonicalJson(3)).toBe("3");
    expect(canonicalJson(null)).toBe("null");
  });

  it("writes what it first wrote, for any value (keys a JSON object orders first, __proto__, dates, holes, boxed values)", () => {
    const key = fc.oneof(
      fc.string(),
      fc.constantFrom("__proto__", "toJSON", "0", "1", "9", "10", "01", "-1", "4294967295"),
    );
    const anything = fc.anything({
      key,
      withDate: true,
      withNullPrototype: true,
      withSparseArray: true,
      withBoxedValues: true,
      withTypedArray: true,
      withMap: true,
      withSet: true,
    });
    fc.assert(
      fc.property(anything, (value) => {
        expect(canonicalJson(value)).toBe(firstCanonicalJson(value));
      }),
      { numRuns: 3000 },
    );
  });

  it("parses back to an equal value", () => {
    const value = { z: [1, { b: true, a: "x" }], a: { nested: { deep: [null] } } };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});

describe("actionDigest", () => {
  const base = {
    runId: "run_1",
    step: 2,
    tool: "payments.refund",
    args: { orderId: "o-1", amountCents: 2400, card: { last4: "4242", brand: "visa" } },
  };

  it("is a sha256 hex digest", () => {
    expect(actionDigest(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("does not change with the order of argument keys", () => {
    const reordered = {
      tool: base.tool,
      args: { card: { brand: "visa", last4: "4242" }, amountCents: 2400, orderId: "o-1" },
      step: 2,
      runId: "run_1",
    };
    expect(actionDigest(reordered)).toBe(actionDigest(base));
  });

  it("changes with the run, the step and the tool", () => {
    const digest = actionDigest(base);
    expect(actionDigest({ ...base, runId: "run_2" })).not.toBe(digest);
    expect(actionDigest({ ...base, step: 3 })).not.toBe(digest);
    expect(actionDigest({ ...base, tool: "payments.charge" })).not.toBe(digest);
  });

  it("changes with any argument, however deep", () => {
    const digest = actionDigest(base);
    const variants = [
      { ...base.args, amountCents: 2401 },
      { ...base.args, orderId: "o-2" },
      { ...base.args, card: { ...base.args.card, last4: "0000" } },
      { ...base.args, note: "extra" },
      { orderId: "o-1", amountCents: 2400 },
      { ...base.args, amountCents: "2400" },
    ];
    const digests = variants.map((args) => actionDigest({ ...base, args }));
    for (const d of digests) expect(d).not.toBe(digest);
    expect(new Set(digests).size).toBe(variants.length);
  });

  it("equals the sha256 of the canonical action", () => {
    expect(actionDigest(base)).toBe(sha256(canonicalJson(base)));
  });
});

describe("operationId", () => {
  it("is stable for the same (run, step, call)", () => {
    expect(operationId("run_1", 3, 0)).toBe(operationId("run_1", 3, 0));
    expect(operationId("run_1", 3, 0)).toMatch(/^op_[0-9a-f]{32}$/);
  });

  it("differs for every run, step and call", () => {
    const ids = [];
    for (const run of ["run_1", "run_2", "run_1:1"])
      for (const step of [0, 1, 2, 12]) for (const call of [0, 1, 2, 21]) ids.push(operationId(run, step, call));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
