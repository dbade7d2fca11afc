import type { ReactNode } from "react";

const TONES = {
  gray: "bg-zinc-100 text-zinc-700 ring-zinc-300",
  blue: "bg-blue-50 text-blue-800 ring-blue-300",
  sky: "bg-sky-50 text-sky-800 ring-sky-300",
  violet: "bg-violet-50 text-violet-800 ring-violet-300",
  amber: "bg-amber-50 text-amber-800 ring-amber-300",
  orange: "bg-orange-50 text-orange-800 ring-orange-400",
  green: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  red: "bg-red-50 text-red-800 ring-red-300",
} as const;

export type BadgeTone = keyof typeof TONES;

type BadgeProps = {
  tone?: BadgeTone;
  /** A dashed outline marks something unverified (e.g. a model's inference). */
  isDashed?: boolean;
  title?: string;
  children: ReactNode;
};

export function Badge({ tone = "gray", isDashed = false, title, children }: BadgeProps) {
  const outline = isDashed ? "border border-dashed border-current ring-0" : "ring-1 ring-inset";
  return (
    <span
      title={title}
      className={`inline-flex items-center gap-1 whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-medium ${outline} ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}
