"use client";
import { useRef, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { describedBy, Field, Input } from "@/components/ui/field";
import { createUserAction } from "@/lib/actions/users";
import { ROLE_LABELS, type Role } from "@/lib/auth/rbac";
import { ActionMessage } from "../action-message";
import { RoleSelect } from "../role-select";
import { fieldError, useAdminAction } from "../use-admin-action";

export function CreateUserForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, isPending, outcome } = useAdminAction(createUserAction, {
    success: (u) => `${u.email} can now sign in as ${ROLE_LABELS[u.role].toLowerCase()}.`,
    onSuccess: () => formRef.current?.reset(),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "");
    run({
      email: text("email"),
      name: text("name") || undefined,
      role: text("role") as Role,
      password: text("password"),
    });
  }

  const error = (path: string) => fieldError(outcome, path);
  return (
    <Card
      title="Add a person"
      description="They sign in with this email and the initial password; share it with them privately."
    >
      <form ref={formRef} onSubmit={submit} aria-label="Add a person" className="space-y-3" noValidate>
        <Field id="user-email" label="Email" error={error("email")}>
          <Input
            id="user-email"
            name="email"
            type="email"
            autoComplete="off"
            required
            error={error("email")}
            {...describedBy("user-email", error("email"))}
          />
        </Field>
        <Field id="user-name" label="Name (optional)" error={error("name")}>
          <Input
            id="user-name"
            name="name"
            autoComplete="off"
            error={error("name")}
            {...describedBy("user-name", error("name"))}
          />
        </Field>
        <Field
          id="user-role"
          label="Role"
          hint="Reviewer: the inbox. Operator: also runs. Admin: everything."
          error={error("role")}
        >
          <RoleSelect
            id="user-role"
            name="role"
            defaultValue="reviewer"
            error={error("role")}
            {...describedBy("user-role", error("role"), true)}
          />
        </Field>
        <Field
          id="user-password"
          label="Initial password"
          hint="At least 12 characters, not a common password."
          error={error("password")}
        >
          <Input
            id="user-password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            error={error("password")}
            {...describedBy("user-password", error("password"), true)}
          />
        </Field>
        <Button type="submit" variant="primary" isBusy={isPending}>
          Add person
        </Button>
        <ActionMessage outcome={outcome} />
      </form>
    </Card>
  );
}
