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

/** Register an HTTP endpoint as a tool. The server validates the whole registration (lib/tools/registered/schemas.ts). */
export function RegisterHttpToolForm() {
  const form = useAdminForm(registerToolAction, {
    toInput: toRegistration,
    success: (t) => `${t.name} registered. Grant it to an agent in the permission matrix.`,
  });
  // Each control is named after its id ("tool-url" → "url"); its server error is found by the input's path.
  const control = (id: string, path: string) => ({ id, name: id.replace(/^tool-/, ""), error: form.error(path) });
  return (
    <AdminFormCard
      form={form}
      title="Register an HTTP tool"
      description="An endpoint agents may call once a permission grants it. Its effect semantics decide what happens after a crash."
      submitLabel="Register tool"
    >
      <InputField
        {...control("tool-name", "name")}
        label="Name"
        hint="http.<name>, e.g. http.crm_update"
        placeholder="http.crm_update"
        autoComplete="off"
      />
      <TextareaField
        {...control("tool-description", "description")}
        label="Description"
        hint="The agent reads it to choose the tool."
        rows={2}
      />
      <div className="grid grid-cols-2 gap-3">
        <SelectField {...control("tool-capability", "capability")} label="Capability" defaultValue="execute">
          <SelectOptions values={CAPABILITIES} />
        </SelectField>
        <SelectField
          {...control("tool-semantics", "semantics")}
          label="Effect semantics"
          aria-describedby={form.error("semantics") ? "tool-semantics-error" : "tool-semantics-meanings"}
          defaultValue="idempotent"
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
        <SelectField {...control("tool-method", "config.method")} label="Method" defaultValue="POST">
          <SelectOptions values={METHODS} />
        </SelectField>
        <InputField
          {...control("tool-url", "config.url")}
          label="URL"
          hint="{{property}} fills in an argument."
          type="url"
          placeholder="https://crm.example.com/customers/{{customerId}}"
        />
      </div>
      <InputField
        {...control("tool-idempotencyHeader", "config.idempotencyHeader")}
        label="Idempotency header (idempotent tools)"
        placeholder="Idempotency-Key"
      />
      <InputField
        {...control("tool-lookupUrl", "config.lookupUrl")}
        label="Lookup URL (reconcilable tools)"
        hint="A GET that finds a previous attempt, e.g. …?operation={{operationId}}"
        type="url"
      />
      <InputField
        {...control("tool-impactTemplate", "impactTemplate")}
        label="Impact sentence"
        hint="What a reviewer reads, e.g. updates customer {{customerId}} in the CRM"
      />
      <TextareaField
        {...control("tool-inputSchema", "inputSchema")}
        label="Input JSON Schema"
        rows={6}
        defaultValue={EXAMPLE_SCHEMA}
        controlClassName="font-mono text-xs"
        spellCheck={false}
      />
    </AdminFormCard>
  );
}
