import type { ReactNode } from "react";

/** One decision's form: submitting it calls `onSubmit` in the page (no navigation); fields are checked there. */
export function DecisionForm({
  label,
  onSubmit,
  children,
}: {
  label: string;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <form
      aria-label={label}
      noValidate
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}
