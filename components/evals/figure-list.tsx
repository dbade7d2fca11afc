import { LabelledValue } from "@/components/ui/labelled-value";

export type LabelledFigure = [label: string, value: string];

/** Labelled figures (counts, cost, times) as a <dl>; the caller lays out its grid and styles the values. */
export function FigureList({
  figures,
  className,
  valueClassName,
}: {
  figures: LabelledFigure[];
  className: string;
  valueClassName: string;
}) {
  return (
    <dl className={className}>
      {figures.map(([label, value]) => (
        <LabelledValue key={label} label={label} className={valueClassName}>
          {value}
        </LabelledValue>
      ))}
    </dl>
  );
}
