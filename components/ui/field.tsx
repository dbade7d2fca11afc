import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";

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

export function Input({
  error,
  className = "",
  ...rest
}: InputHTMLAttributes<HTMLInputElement> & { error?: string | null }) {
  return <input className={`${CONTROL} ${border(error)} ${className}`} {...rest} />;
}

export function Select({
  error,
  className = "",
  ...rest
}: SelectHTMLAttributes<HTMLSelectElement> & { error?: string | null }) {
  return <select className={`${CONTROL} ${border(error)} ${className}`} {...rest} />;
}

export function Textarea({
  error,
  className = "",
  ...rest
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { error?: string | null }) {
  return <textarea className={`${CONTROL} ${border(error)} ${className}`} {...rest} />;
}
