import type { ReactNode } from "react";

/** An admin page's two columns on a wide screen: its list, and beside it the forms and recent activity. */
export function AdminColumns({ aside, children }: { aside: ReactNode; children: ReactNode }) {
  return (
    <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_24rem]">
      <div className="min-w-0 space-y-6">{children}</div>
      <div className="space-y-6">{aside}</div>
    </div>
  );
}
