"use client";
import { useRef, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { describedBy, Field, Input } from "@/components/ui/field";
import { putMemberAction } from "@/lib/actions/workspaces";
import { ROLE_LABELS, type Role } from "@/lib/auth/rbac";
import { ActionMessage } from "../action-message";
import { RoleSelect } from "../role-select";
import { fieldError, useAdminAction } from "../use-admin-action";

/** Add a person (who can already sign in) to this workspace, or change their role here. */
export function PutMemberForm({ workspaceName }: { workspaceName: string }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, isPending, outcome } = useAdminAction(putMemberAction, {
    success: (m) => `${m.email} is ${ROLE_LABELS[m.role].toLowerCase()} in ${workspaceName}.`,
    onSuccess: () => formRef.current?.reset(),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    run({ email: String(form.get("email") ?? ""), role: String(form.get("role") ?? "") as Role });
  }
  const error = (path: string) => fieldError(outcome, path);
  return (
    <Card title="Add a person here" description="Someone who can sign in already; their role in this workspace only.">
      <form ref={formRef} onSubmit={submit} aria-label="Add a person to the workspace" className="space-y-3" noValidate>
        <Field id="member-email" label="Email" error={error("email")}>
          <Input
            id="member-email"
            name="email"
            type="email"
            autoComplete="off"
            required
            error={error("email")}
            {...describedBy("member-email", error("email"))}
          />
        </Field>
        <Field id="member-role" label="Role here" error={error("role")}>
          <RoleSelect
            id="member-role"
            name="role"
            defaultValue="reviewer"
            error={error("role")}
            {...describedBy("member-role", error("role"))}
          />
        </Field>
        <Button type="submit" variant="primary" isBusy={isPending}>
          Save
        </Button>
        <ActionMessage outcome={outcome} />
      </form>
    </Card>
  );
}
