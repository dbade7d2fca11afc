import type { ButtonHTMLAttributes } from "react";

const VARIANTS = {
  primary: "bg-blue-700 text-white hover:bg-blue-800 border-transparent",
  secondary: "bg-white text-zinc-800 hover:bg-zinc-50 border-zinc-300",
  danger: "bg-red-700 text-white hover:bg-red-800 border-transparent",
  ghost: "bg-transparent text-zinc-700 hover:bg-zinc-100 border-transparent",
} as const;

const SIZES = { sm: "px-2 py-1 text-xs", md: "px-3 py-1.5 text-sm" } as const;

export type ButtonVariant = keyof typeof VARIANTS;

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  size?: keyof typeof SIZES;
  isBusy?: boolean;
};

/** The console's one button: a visible focus ring, a busy state that also disables it. */
export function Button({
  variant = "secondary",
  size = "md",
  isBusy = false,
  className = "",
  disabled,
  type = "button",
  children,
  ...rest
}: ButtonProps) {
  return (
    <button
      type={type}
      disabled={disabled || isBusy}
      aria-busy={isBusy || undefined}
      className={`inline-flex items-center justify-center gap-1.5 rounded border font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:cursor-not-allowed disabled:opacity-60 ${VARIANTS[variant]} ${SIZES[size]} ${className}`}
      {...rest}
    >
      {children}
    </button>
  );
}
