import { describe, expect, it } from "vitest";
import { z } from "zod";
import { argsJsonSchema } from "../lib/queries/packets";
import { initialFormValues, readFormValues, readLeaf } from "../lib/inbox/form-values";
import { buildFormModel, humanize, leafFields, type FormField } from "../lib/inbox/schema-form";
import { refundInputSchema } from "../lib/tools/payments";
import { sendMailInputSchema } from "../lib/tools/mail";

// The edit form: a tool's zod schema → JSON Schema (server) → form model → values → arguments (client).

const refundModel = () => buildFormModel(argsJsonSchema({ input: refundInputSchema }))!;
const field = (fields: FormField[], path: string) => leafFields(fields).find((f) => f.path === path)!;

describe("schema → form model", () => {
  it("gives each property of the refund tool a typed input with its constraints", () => {
    const model = refundModel();
    expect(model.fields.map((f) => [f.path, f.kind, f.isRequired])).toEqual([
      ["orderId", "string", true],
      ["amountCents", "integer", true],
      ["cardLast4", "string", true],
      ["currency", "string", false],
    ]);
    expect(field(model.fields, "amountCents")).toMatchObject({ exclusiveMinimum: 0, label: "Amount cents" });
    expect(field(model.fields, "amountCents")).not.toHaveProperty("maximum"); // zod's int64 bound is noise
    expect(field(model.fields, "cardLast4")).toMatchObject({ pattern: "^\\d{4}$" });
    expect(field(model.fields, "currency")).toMatchObject({ minLength: 3, maxLength: 3 });
  });

  it("maps enum, boolean, nested object and the rest (arrays, nullable) to JSON", () => {
    const schema = z.object({
      mode: z.enum(["fast", "safe"]),
      dryRun: z.boolean().optional(),
      target: z.object({ host: z.string(), port: z.number().int().min(1).max(65535) }),
      tags: z.array(z.string()),
      note: z.string().nullable(),
    });
    const model = buildFormModel(argsJsonSchema({ input: schema }))!;
    expect(model.fields.map((f) => [f.name, f.kind])).toEqual([
      ["mode", "enum"],
      ["dryRun", "boolean"],
      ["target", "object"],
      ["tags", "json"],
      ["note", "json"],
    ]);
    expect(field(model.fields, "mode")).toMatchObject({ options: ["fast", "safe"] });
    expect(field(model.fields, "target.port")).toMatchObject({
      kind: "integer",
      minimum: 1,
      maximum: 65535,
      isRequired: true,
    });
  });

  it("has no form for a schema that is not an object with properties", () => {
    expect(buildFormModel(null)).toBeNull();
    expect(buildFormModel({ type: "string" })).toBeNull();
    expect(buildFormModel({ type: "object" })).toBeNull();
  });

  it("humanizes property names", () => {
    expect(humanize("amountCents")).toBe("Amount cents");
    expect(humanize("card_last4")).toBe("Card last4");
  });
});

describe("form values ↔ arguments, with client-side validation", () => {
  const proposal = { orderId: "ord_1", amountCents: 24_000, cardLast4: "4242" };

  it("starts from the proposal and reads it back unchanged", () => {
    const model = refundModel();
    const values = initialFormValues(model, proposal);
    expect(values).toEqual({ orderId: "ord_1", amountCents: "24000", cardLast4: "4242", currency: "" });
    expect(readFormValues(model, values)).toEqual({ ok: true, args: proposal });
  });

  it("reports required, type, bound and pattern errors by path", () => {
    const model = refundModel();
    const result = readFormValues(model, { orderId: "", amountCents: "-5", cardLast4: "42", currency: "dollars" });
    expect(result).toEqual({
      ok: false,
      fieldErrors: {
        orderId: ["Required."],
        amountCents: ["Must be more than 0."],
        cardLast4: ["Does not match the expected format (^\\d{4}$)."],
        currency: ["At most 3 characters."],
      },
    });
    expect(readFormValues(model, { ...initialFormValues(model, proposal), amountCents: "12.5" })).toMatchObject({
      fieldErrors: { amountCents: ["Enter a whole number."] },
    });
    expect(readFormValues(model, { ...initialFormValues(model, proposal), amountCents: "abc" })).toMatchObject({
      fieldErrors: { amountCents: ["Enter a number."] },
    });
  });

  it("checks emails with the schema's pattern, enums against their options, JSON by parsing", () => {
    const mail = buildFormModel(argsJsonSchema({ input: sendMailInputSchema }))!;
    expect(readLeaf(field(mail.fields, "to"), "not-an-email")).toEqual({ error: "Not a valid email address." });
    expect(readLeaf(field(mail.fields, "to"), "ann@example.com")).toEqual({ value: "ann@example.com" });
    const enumField: FormField = {
      kind: "enum",
      path: "mode",
      name: "mode",
      label: "Mode",
      isRequired: true,
      options: ["fast", 2, true],
    };
    expect(readLeaf(enumField, "2")).toEqual({ value: 2 });
    expect(readLeaf(enumField, "slow")).toEqual({ error: "Choose one of: fast, 2, true." });
    const json: FormField = { kind: "json", path: "tags", name: "tags", label: "Tags", isRequired: false };
    expect(readLeaf(json, '["a"]')).toEqual({ value: ["a"] });
    expect(readLeaf(json, "[a")).toEqual({ error: "Not valid JSON." });
    expect(readLeaf(json, "")).toEqual({ value: undefined });
  });

  it("leaves out an optional object left blank but checks a required one", () => {
    const schema = z.object({
      target: z.object({ host: z.string().min(1) }),
      extra: z.object({ note: z.string().min(1) }).optional(),
    });
    const model = buildFormModel(argsJsonSchema({ input: schema }))!;
    expect(readFormValues(model, { "target.host": "db1", "extra.note": "" })).toEqual({
      ok: true,
      args: { target: { host: "db1" } },
    });
    expect(readFormValues(model, { "target.host": "", "extra.note": "" })).toEqual({
      ok: false,
      fieldErrors: { "target.host": ["Required."] },
    });
  });

  it("agrees with the tool's own zod schema on what it accepts", () => {
    const model = refundModel();
    const samples = [
      { orderId: "o", amountCents: "1", cardLast4: "0000", currency: "usd" },
      { orderId: "o", amountCents: "0", cardLast4: "0000", currency: "" },
      { orderId: "o", amountCents: "10", cardLast4: "12345", currency: "" },
      { orderId: "o", amountCents: "10", cardLast4: "1234", currency: "eu" },
    ];
    for (const values of samples) {
      const client = readFormValues(model, values);
      const server = refundInputSchema.safeParse(
        client.ok
          ? client.args
          : { ...values, amountCents: Number(values.amountCents), currency: values.currency || undefined },
      );
      expect(client.ok, JSON.stringify(values)).toBe(server.success);
    }
  });
});
