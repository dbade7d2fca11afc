"use client";
import { InputField } from "@/components/ui/labelled-fields";
import { createWorkspaceAction } from "@/lib/actions/workspaces";
import { AdminFormCard } from "../admin-form-card";
import { formText, useAdminForm } from "../use-admin-form";

/** An instance admin's: a new workspace, with them as its first admin. */
export function CreateWorkspaceForm() {
  const form = useAdminForm(createWorkspaceAction, {
    toInput: (data) => ({ slug: formText(data, "slug"), name: formText(data, "name") }),
    success: (w) => `Workspace ${w.name} created at /w/${w.slug}.`,
    idPrefix: "workspace",
  });
  return (
    <AdminFormCard
      form={form}
      title="Create a workspace"
      description="A team's own runs, inbox, rules, tools and tokens. You become its first admin."
      submitLabel="Create workspace"
    >
      <InputField {...form.control("name")} label="Name" autoComplete="off" required />
      <InputField
        {...form.control("slug")}
        label="Slug"
        hint="In its URLs: /w/<slug>/inbox. Lower-case letters, digits and dashes."
        autoComplete="off"
        required
      />
    </AdminFormCard>
  );
}
