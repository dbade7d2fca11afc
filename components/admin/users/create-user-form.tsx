"use client";
import { InputField, SelectField } from "@/components/ui/labelled-fields";
import { createUserAction } from "@/lib/actions/users";
import { ROLE_LABELS, type Role } from "@/lib/auth/rbac";
import { AdminFormCard } from "../admin-form-card";
import { PersonEmailField } from "../person-email-field";
import { RoleOptions } from "../role-select";
import { formText, useAdminForm } from "../use-admin-form";

export function CreateUserForm() {
  const form = useAdminForm(createUserAction, {
    toInput: (data) => ({
      email: formText(data, "email"),
      name: formText(data, "name") || undefined,
      role: formText(data, "role") as Role,
      password: formText(data, "password"),
    }),
    success: (u) => `${u.email} can now sign in as ${ROLE_LABELS[u.role].toLowerCase()}.`,
    idPrefix: "user",
  });
  return (
    <AdminFormCard
      form={form}
      title="Add a person"
      description="They sign in with this email and the initial password; share it with them privately."
      submitLabel="Add person"
    >
      <PersonEmailField id="user-email" error={form.error("email")} />
      <InputField {...form.control("name")} label="Name (optional)" autoComplete="off" />
      <SelectField
        {...form.control("role")}
        label="Role"
        hint="Reviewer: the inbox. Operator: also runs. Admin: everything."
        defaultValue="reviewer"
      >
        <RoleOptions />
      </SelectField>
      <InputField
        {...form.control("password")}
        label="Initial password"
        hint="At least 12 characters, not a common password."
        type="password"
        autoComplete="new-password"
        required
      />
    </AdminFormCard>
  );
}
