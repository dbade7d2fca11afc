import type { ReactNode } from "react";
import { describedBy, Field, Input, Select, Textarea } from "./field";

// A <Field> and its one control as one element: the id, the error and the aria wiring that ties the label,
// hint and error to the control are written once, not once per form field.

type LabelledProps = {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Classes of the field (label, control, hint and error together). */
  className?: string;
  /** Classes of the control itself. */
  controlClassName?: string;
};

type ControlProps = { id?: string; error?: string | null; className?: string };

function withLabel<P extends ControlProps>(Control: (props: P) => ReactNode, displayName: string) {
  function LabelledControl({
    id,
    label,
    hint,
    error,
    className,
    controlClassName,
    ...control
  }: LabelledProps & Omit<P, keyof LabelledProps>) {
    // The control's own props come last, so an explicit aria-describedby wins over the wired one. (P is the
    // control's props less the field's, plus the wired ones: TypeScript cannot see that this adds up to P.)
    const wired = { id, error, className: controlClassName, ...describedBy(id, error, hint) };
    const props = { ...wired, ...control } as unknown as P;
    return (
      <Field id={id} label={label} hint={hint} error={error} className={className}>
        <Control {...props} />
      </Field>
    );
  }
  LabelledControl.displayName = displayName;
  return LabelledControl;
}

export const InputField = withLabel(Input, "InputField");
export const SelectField = withLabel(Select, "SelectField");
export const TextareaField = withLabel(Textarea, "TextareaField");
