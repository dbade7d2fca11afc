"use client";
import { useRef, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { describedBy, Field, Input, Select, Textarea } from "@/components/ui/field";
import { registerToolAction } from "@/lib/actions/tools";
import { CAPABILITIES, EFFECT_SEMANTICS, type Capability, type EffectSemantics } from "@/lib/runtime/types";
import { ActionMessage } from "../action-message";
import { fieldError, useAdminAction } from "../use-admin-action";
import { SEMANTICS_INFO } from "./semantics";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": { "customerId": { "type": "string" } },
  "required": ["customerId"]
}`;

/** Register an HTTP endpoint as a tool. The server validates the whole registration (lib/tools/registered/schemas.ts). */
export function RegisterHttpToolForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, isPending, outcome } = useAdminAction(registerToolAction, {
    success: (t) => `${t.name} registered. Grant it to an agent in the permission matrix.`,
    onSuccess: () => formRef.current?.reset(),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const optional = (name: string) => text(name) || undefined;
    run({
      kind: "http",
      name: text("name"),
      description: text("description"),
      capability: text("capability") as Capability,
      semantics: text("semantics") as EffectSemantics,
      inputSchema: text("inputSchema") || undefined,
      impactTemplate: optional("impactTemplate"),
      config: {
        url: text("url"),
        method: text("method") as (typeof METHODS)[number],
        idempotencyHeader: optional("idempotencyHeader"),
        lookupUrl: optional("lookupUrl"),
      },
    });
  }

  const error = (path: string) => fieldError(outcome, path);
  const control = (id: string, path: string, hint?: boolean) => ({
    id,
    name: id.replace(/^tool-/, ""),
    error: error(path),
    ...describedBy(id, error(path), hint),
  });
  return (
    <Card
      title="Register an HTTP tool"
      description="An endpoint agents may call once a permission grants it. Its effect semantics decide what happens after a crash."
    >
      <form ref={formRef} onSubmit={submit} aria-label="Register an HTTP tool" className="space-y-3" noValidate>
        <Field id="tool-name" label="Name" hint="http.<name>, e.g. http.crm_update" error={error("name")}>
          <Input {...control("tool-name", "name", true)} placeholder="http.crm_update" autoComplete="off" />
        </Field>
        <Field
          id="tool-description"
          label="Description"
          hint="The agent reads it to choose the tool."
          error={error("description")}
        >
          <Textarea {...control("tool-description", "description", true)} rows={2} />
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field id="tool-capability" label="Capability" error={error("capability")}>
            <Select {...control("tool-capability", "capability")} defaultValue="execute">
              {CAPABILITIES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="tool-semantics" label="Effect semantics" error={error("semantics")}>
            <Select
              {...control("tool-semantics", "semantics")}
              aria-describedby={error("semantics") ? "tool-semantics-error" : "tool-semantics-meanings"}
              defaultValue="idempotent"
            >
              {EFFECT_SEMANTICS.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          </Field>
        </div>
        <ul id="tool-semantics-meanings" className="space-y-0.5 text-xs text-zinc-500">
          {EFFECT_SEMANTICS.map((s) => (
            <li key={s}>
              <span className="font-mono">{s}</span>: {SEMANTICS_INFO[s].meaning}
            </li>
          ))}
        </ul>
        <div className="grid grid-cols-[6rem_minmax(0,1fr)] gap-3">
          <Field id="tool-method" label="Method" error={error("config.method")}>
            <Select {...control("tool-method", "config.method")} defaultValue="POST">
              {METHODS.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="tool-url" label="URL" hint="{{property}} fills in an argument." error={error("config.url")}>
            <Input
              {...control("tool-url", "config.url", true)}
              type="url"
              placeholder="https://crm.example.com/customers/{{customerId}}"
            />
          </Field>
        </div>
        <Field
          id="tool-idempotencyHeader"
          label="Idempotency header (idempotent tools)"
          error={error("config.idempotencyHeader")}
        >
          <Input {...control("tool-idempotencyHeader", "config.idempotencyHeader")} placeholder="Idempotency-Key" />
        </Field>
        <Field
          id="tool-lookupUrl"
          label="Lookup URL (reconcilable tools)"
          hint="A GET that finds a previous attempt, e.g. …?operation={{operationId}}"
          error={error("config.lookupUrl")}
        >
          <Input {...control("tool-lookupUrl", "config.lookupUrl", true)} type="url" />
        </Field>
        <Field
          id="tool-impactTemplate"
          label="Impact sentence"
          hint="What a reviewer reads, e.g. updates customer {{customerId}} in the CRM"
          error={error("impactTemplate")}
        >
          <Input {...control("tool-impactTemplate", "impactTemplate", true)} />
        </Field>
        <Field id="tool-inputSchema" label="Input JSON Schema" error={error("inputSchema")}>
          <Textarea
            {...control("tool-inputSchema", "inputSchema")}
            rows={6}
            defaultValue={EXAMPLE_SCHEMA}
            className="font-mono text-xs"
            spellCheck={false}
          />
        </Field>
        <Button type="submit" variant="primary" isBusy={isPending}>
          Register tool
        </Button>
        <ActionMessage outcome={outcome} />
      </form>
    </Card>
  );
}
