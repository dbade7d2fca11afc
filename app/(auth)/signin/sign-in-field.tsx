import type { InputHTMLAttributes, Ref } from "react";
import { describedBy } from "@/components/ui/field";

const INPUT_CLASS =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-400 focus:border-blue-600 focus:outline-2 focus:outline-blue-600/30 aria-invalid:border-red-500";

type SignInFieldProps = InputHTMLAttributes<HTMLInputElement> & {
  /** Also the input's name. */
  id: string;
  label: string;
  error?: string;
  ref?: Ref<HTMLInputElement>;
};

/** A field of the sign-in form, in the sign-in page's own look: the label, the input, its error tied to it. */
export function SignInField({ id, label, error, ref, ...input }: SignInFieldProps) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-zinc-800">
        {label}
      </label>
      <input ref={ref} id={id} name={id} {...describedBy(id, error)} className={INPUT_CLASS} {...input} />
      {error && (
        <p id={`${id}-error`} className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
