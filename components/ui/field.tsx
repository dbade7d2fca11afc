import { createElement, type ComponentProps, type ReactNode } from "react";

// Form controls with a label, an optional hint and an error wired to aria-describedby / aria-invalid,
// so screen readers announce what is wrong. Give each control an `id`.

const CONTROL =
  "block w-full rounded border bg-white px-2.5 py-1.5 text-sm text-zinc-900 shadow-xs focus:outline-2 focus:outline-offset-0 focus:outline-blue-600";

type FieldProps = {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  children: ReactNode;
  className?: string;
};

export function Field({ id, label, hint, error, children, className = "" }: FieldProps) {
  return (
    <div className={className}>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-zinc-800">
        {label}
      </label>
      {children}
      {hint && !error && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-zinc-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

/** aria props for a control inside <Field id=… error=…> */
export function describedBy(id: string, error?: string | null, hint?: ReactNode) {
  return {
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${id}-error` : hint ? `${id}-hint` : undefined,
  } as const;
}

const border = (error?: string | null) => (error ? "border-red-500" : "border-zinc-300");

type ControlTag = "input" | "select" | "textarea";

/** A native form control in the console's style; its border turns red while it holds an error. */
function styledControl<T extends ControlTag>(tag: T, displayName: string) {
  function StyledControl({ error, className = "", ...rest }: ComponentProps<T> & { error?: string | null }) {
    return createElement(tag, { className: `${CONTROL} ${border(error)} ${className}`, ...rest });
  }
  StyledControl.displayName = displayName;
  return StyledControl;
}

export const Input = styledControl("input", "Input");
export const Select = styledControl("select", "Select");
export const Textarea = styledControl("textarea", "Textarea");
