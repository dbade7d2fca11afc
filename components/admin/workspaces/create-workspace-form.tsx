"use client";
import { useRef, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { describedBy, Field, Input } from "@/components/ui/field";
import { createWorkspaceAction } from "@/lib/actions/workspaces";
import { ActionMessage } from "../action-message";
import { fieldError, useAdminAction } from "../use-admin-action";

/** An instance admin's: a new workspace, with them as its first admin. */
export function CreateWorkspaceForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, isPending, outcome } = useAdminAction(createWorkspaceAction, {
    success: (w) => `Workspace ${w.name} created at /w/${w.slug}.`,
    onSuccess: () => formRef.current?.reset(),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    run({ slug: String(form.get("slug") ?? ""), name: String(form.get("name") ?? "") });
  }
  const error = (path: string) => fieldError(outcome, path);
  return (
    <Card
      title="Create a workspace"
      description="A team's own runs, inbox, rules, tools and tokens. You become its first admin."
    >
      <form ref={formRef} onSubmit={submit} aria-label="Create a workspace" className="space-y-3" noValidate>
        <Field id="workspace-name" label="Name" error={error("name")}>
          <Input
            id="workspace-name"
            name="name"
            autoComplete="off"
            required
            error={error("name")}
            {...describedBy("workspace-name", error("name"))}
          />
        </Field>
        <Field
          id="workspace-slug"
          label="Slug"
          hint="In its URLs: /w/<slug>/inbox. Lower-case letters, digits and dashes."
          error={error("slug")}
        >
          <Input
            id="workspace-slug"
            name="slug"
            autoComplete="off"
            required
            error={error("slug")}
            {...describedBy("workspace-slug", error("slug"), true)}
          />
        </Field>
        <Button type="submit" variant="primary" isBusy={isPending}>
          Create workspace
        </Button>
        <ActionMessage outcome={outcome} />
      </form>
    </Card>
  );
}
