import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ActionMessage } from "./action-message";
import type { AdminForm } from "./use-admin-form";

type AdminFormCardProps = {
  form: Pick<AdminForm, "formProps" | "isPending" | "outcome">;
  title: string;
  description: ReactNode;
  /** The form's accessible name, when it says more than the card's title. */
  formLabel?: string;
  submitLabel: string;
  children: ReactNode;
};

/** An admin form in its card: the fields, the submit button, then the action's outcome. */
export function AdminFormCard({ form, title, description, formLabel, submitLabel, children }: AdminFormCardProps) {
  return (
    <Card title={title} description={description}>
      <form {...form.formProps} aria-label={formLabel ?? title} className="space-y-3">
        {children}
        <Button type="submit" variant="primary" isBusy={form.isPending}>
          {submitLabel}
        </Button>
        <ActionMessage outcome={form.outcome} />
      </form>
    </Card>
  );
}
