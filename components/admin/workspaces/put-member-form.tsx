"use client";
import { SelectField } from "@/components/ui/labelled-fields";
import { putMemberAction } from "@/lib/actions/workspaces";
import { ROLE_LABELS, type Role } from "@/lib/auth/rbac";
import { AdminFormCard } from "../admin-form-card";
import { PersonEmailField } from "../person-email-field";
import { RoleOptions } from "../role-select";
import { formText, useAdminForm } from "../use-admin-form";

/** Add a person (who can already sign in) to this workspace, or change their role here. */
export function PutMemberForm({ workspaceName }: { workspaceName: string }) {
  const form = useAdminForm(putMemberAction, {
    toInput: (data) => ({ email: formText(data, "email"), role: formText(data, "role") as Role }),
    success: (m) => `${m.email} is ${ROLE_LABELS[m.role].toLowerCase()} in ${workspaceName}.`,
    idPrefix: "member",
  });
  return (
    <AdminFormCard
      form={form}
      title="Add a person here"
      description="Someone who can sign in already; their role in this workspace only."
      formLabel="Add a person to the workspace"
      submitLabel="Save"
    >
      <PersonEmailField id="member-email" error={form.error("email")} />
      <SelectField {...form.control("role")} label="Role here" defaultValue="reviewer">
        <RoleOptions />
      </SelectField>
    </AdminFormCard>
  );
}
