"use client";
import { useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { InputField } from "@/components/ui/labelled-fields";
import { createApiTokenAction } from "@/lib/actions/tokens";
import { API_SCOPES, type ApiScope } from "@/lib/api/scopes";
import { ActionMessage } from "../action-message";
import { fieldError, useAdminAction } from "../use-admin-action";
import { NewTokenPanel } from "./new-token-panel";
import { SCOPE_HINTS } from "./scope-hints";

/** Create a token: name + scopes. The token is shown once, in the panel below the form. */
export function CreateTokenForm() {
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const { run, isPending, outcome } = useAdminAction(createApiTokenAction, {
    success: (t) => `Token "${t.name}" created.`,
    onSuccess: (t) => {
      setCreated({ name: t.name, token: t.token });
      formRef.current?.reset();
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setCreated(null);
    const days = String(form.get("expiresInDays") ?? "").trim();
    run({
      name: String(form.get("name") ?? ""),
      scopes: form.getAll("scopes").map(String) as ApiScope[],
      ...(days ? { expiresInDays: Number(days) } : {}),
    });
  }

  const nameError = fieldError(outcome, "name");
  const scopesError = fieldError(outcome, "scopes");
  const expiryError = fieldError(outcome, "expiresInDays");
  return (
    <Card
      title="Create a token"
      description="For scripts, CI and the CLI (Authorization: Bearer …). It acts as you, within your role; give it only the scopes it needs."
    >
      <form ref={formRef} onSubmit={submit} aria-label="Create a token" className="space-y-4" noValidate>
        <InputField
          id="token-name"
          name="name"
          label="Name"
          hint="What uses it, e.g. “nightly eval job”."
          required
          maxLength={100}
          error={nameError}
        />
        <fieldset aria-describedby={scopesError ? "token-scopes-error" : undefined}>
          <legend className="mb-1 text-sm font-medium text-zinc-800">Scopes</legend>
          <div className="grid gap-1 sm:grid-cols-2">
            {API_SCOPES.map((scope) => (
              <label key={scope} className="flex items-start gap-2 text-sm text-zinc-800">
                <input type="checkbox" name="scopes" value={scope} className="mt-0.5 size-4 accent-blue-700" />
                <span>
                  <code className="font-mono text-xs">{scope}</code>
                  <span className="block text-xs text-zinc-500">{SCOPE_HINTS[scope]}</span>
                </span>
              </label>
            ))}
          </div>
          {scopesError && (
            <p id="token-scopes-error" className="mt-1 text-xs text-red-700">
              {scopesError}
            </p>
          )}
        </fieldset>
        <InputField
          id="token-expiry"
          name="expiresInDays"
          label="Expires after (days)"
          hint="Leave empty for a token that does not expire."
          type="number"
          min={1}
          max={3650}
          inputMode="numeric"
          error={expiryError}
        />
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" isBusy={isPending}>
            Create token
          </Button>
        </div>
        {outcome?.tone === "error" && <ActionMessage outcome={outcome} />}
      </form>
      {created && <NewTokenPanel name={created.name} token={created.token} onDone={() => setCreated(null)} />}
    </Card>
  );
}
