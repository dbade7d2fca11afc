import type { ReactNode } from "react";

// The users page keeps the narrower side column it had: its table holds a role select and two buttons a row.
const GRID = {
  narrow: "grid gap-6 xl:grid-cols-[minmax(0,1fr)_22rem]",
  wide: "grid gap-6 xl:grid-cols-[minmax(0,1fr)_24rem]",
};

/** An admin page's two columns on a wide screen: its list, and beside it the forms and recent activity. */
export function AdminColumns({
  aside,
  asideWidth = "wide",
  children,
}: {
  aside: ReactNode;
  asideWidth?: keyof typeof GRID;
  children: ReactNode;
}) {
  return (
    <div className={GRID[asideWidth]}>
      <div className="min-w-0 space-y-6">{children}</div>
      <div className="space-y-6">{aside}</div>
    </div>
  );
}
