"use client";
import { InputField, SelectField, TextareaField } from "@/components/ui/labelled-fields";
import { SelectOptions } from "@/components/ui/select-options";
import { registerToolAction } from "@/lib/actions/tools";
import { CAPABILITIES, EFFECT_SEMANTICS, type Capability, type EffectSemantics } from "@/lib/runtime/types";
import { AdminFormCard } from "../admin-form-card";
import { formText, useAdminForm } from "../use-admin-form";
import { SEMANTICS_INFO } from "./semantics";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": { "customerId": { "type": "string" } },
  "required": ["customerId"]
}`;

function toRegistration(form: FormData) {
  const text = (name: string) => formText(form, name).trim();
  const optional = (name: string) => text(name) || undefined;
  return {
    kind: "http" as const,
    name: text("name"),
    description: text("description"),
    capability: text("capability") as Capability,
    semantics: text("semantics") as EffectSemantics,
    inputSchema: optional("inputSchema"),
    impactTemplate: optional("impactTemplate"),
    config: {
      url: text("url"),
      method: text("method") as (typeof METHODS)[number],
      idempotencyHeader: optional("idempotencyHeader"),
      lookupUrl: optional("lookupUrl"),
    },
  };
}

// What each control says, by its name (its id is "tool-<name>"); `path` is where the server reports its error.
const FIELDS = {
  name: {
    path: "name",
    label: "Name",
    hint: "http.<name>, e.g. http.crm_update",
    placeholder: "http.crm_update",
    autoComplete: "off",
  },
  description: { path: "description", label: "Description", hint: "The agent reads it to choose the tool.", rows: 2 },
  capability: { path: "capability", label: "Capability", defaultValue: "execute" },
  semantics: { path: "semantics", label: "Effect semantics", defaultValue: "idempotent" },
  method: { path: "config.method", label: "Method", defaultValue: "POST" },
  url: {
    path: "config.url",
    label: "URL",
    hint: "{{property}} fills in an argument.",
    type: "url",
    placeholder: "https://crm.example.com/customers/{{customerId}}",
  },
  idempotencyHeader: {
    path: "config.idempotencyHeader",
    label: "Idempotency header (idempotent tools)",
    placeholder: "Idempotency-Key",
  },
  lookupUrl: {
    path: "config.lookupUrl",
    label: "Lookup URL (reconcilable tools)",
    hint: "A GET that finds a previous attempt, e.g. …?operation={{operationId}}",
    type: "url",
  },
  impactTemplate: {
    path: "impactTemplate",
    label: "Impact sentence",
    hint: "What a reviewer reads, e.g. updates customer {{customerId}} in the CRM",
  },
  inputSchema: {
    path: "inputSchema",
    label: "Input JSON Schema",
    rows: 6,
    defaultValue: EXAMPLE_SCHEMA,
    controlClassName: "font-mono text-xs",
    spellCheck: false,
  },
} as const;

/** Register an HTTP endpoint as a tool. The server validates the whole registration (lib/tools/registered/schemas.ts). */
export function RegisterHttpToolForm() {
  const form = useAdminForm(registerToolAction, {
    toInput: toRegistration,
    success: (t) => `${t.name} registered. Grant it to an agent in the permission matrix.`,
    idPrefix: "tool",
  });
  const field = (name: keyof typeof FIELDS) => {
    const { path, ...says } = FIELDS[name];
    return { ...form.control(name, path), ...says };
  };
  return (
    <AdminFormCard
      form={form}
      title="Register an HTTP tool"
      description="An endpoint agents may call once a permission grants it. Its effect semantics decide what happens after a crash."
      submitLabel="Register tool"
    >
      <InputField {...field("name")} />
      <TextareaField {...field("description")} />
      <div className="grid grid-cols-2 gap-3">
        <SelectField {...field("capability")}>
          <SelectOptions values={CAPABILITIES} />
        </SelectField>
        <SelectField
          {...field("semantics")}
          aria-describedby={form.error("semantics") ? "tool-semantics-error" : "tool-semantics-meanings"}
        >
          <SelectOptions values={EFFECT_SEMANTICS} />
        </SelectField>
      </div>
      <ul id="tool-semantics-meanings" className="space-y-0.5 text-xs text-zinc-500">
        {EFFECT_SEMANTICS.map((s) => (
          <li key={s}>
            <span className="font-mono">{s}</span>: {SEMANTICS_INFO[s].meaning}
          </li>
        ))}
      </ul>
      <div className="grid grid-cols-[6rem_minmax(0,1fr)] gap-3">
        <SelectField {...field("method")}>
          <SelectOptions values={METHODS} />
        </SelectField>
        <InputField {...field("url")} />
      </div>
      <InputField {...field("idempotencyHeader")} />
      <InputField {...field("lookupUrl")} />
      <InputField {...field("impactTemplate")} />
      <TextareaField {...field("inputSchema")} />
    </AdminFormCard>
  );
}
