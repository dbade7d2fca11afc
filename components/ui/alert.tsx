import type { ReactNode } from "react";

const TONES = {
  error: "border-red-300 bg-red-50 text-red-900",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  success: "border-emerald-300 bg-emerald-50 text-emerald-900",
  info: "border-sky-300 bg-sky-50 text-sky-900",
} as const;

/** A message box: errors are announced assertively (role=alert), everything else politely (role=status). */
export function Alert({
  tone = "info",
  title,
  children,
}: {
  tone?: keyof typeof TONES;
  title?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`rounded border px-3 py-2 text-sm ${TONES[tone]}`}>
      {title && <p className="font-medium">{title}</p>}
      {children}
    </div>
  );
}
