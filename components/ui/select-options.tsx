import type { ReactNode } from "react";

/** The <option>s of a <select>, one a value, shown as `labelOf` says (the value itself by default). */
export function SelectOptions<T extends string>({
  values,
  labelOf,
}: {
  values: readonly T[];
  labelOf?: (value: T) => ReactNode;
}) {
  return (
    <>
      {values.map((value) => (
        <option key={value} value={value}>
          {labelOf ? labelOf(value) : value}
        </option>
      ))}
    </>
  );
}
