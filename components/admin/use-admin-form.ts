"use client";
import { useRef, type FormEvent } from "react";
import type { ActionResult } from "@/lib/actions/define-action";
import { fieldError, useAdminAction } from "./use-admin-action";

/**
 * An admin form that sends one server action: the action's input is read from the submitted form, and the
 * form is cleared once the action succeeds. Spread `formProps` on the <form> (AdminFormCard does).
 */
export function useAdminForm<I, O>(
  action: (input: I) => Promise<ActionResult<O>>,
  opts: {
    toInput: (form: FormData) => I;
    success: (data: O) => string;
    /** Controls' ids are "<idPrefix>-<name>" (see `control`). */
    idPrefix: string;
  },
) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, isPending, outcome } = useAdminAction(action, {
    success: opts.success,
    onSuccess: () => formRef.current?.reset(),
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    run(opts.toInput(new FormData(event.currentTarget)));
  }
  return {
    formProps: { ref: formRef, onSubmit, noValidate: true },
    isPending,
    outcome,
    /** The first server error of a field, by its dotted path. */
    error: (path: string) => fieldError(outcome, path),
    /** A control's id, name and server error; the error is found by its dotted path, the name by default. */
    control: (name: string, path = name) => ({
      id: `${opts.idPrefix}-${name}`,
      name,
      error: fieldError(outcome, path),
    }),
  };
}

export type AdminForm = ReturnType<typeof useAdminForm>;

/** A submitted form's text field: the empty string when absent. */
export const formText = (form: FormData, name: string) => String(form.get(name) ?? "");
