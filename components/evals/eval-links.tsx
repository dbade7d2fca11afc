import type { ReactNode } from "react";
import { ConsoleLink } from "@/components/shell/console-links";

// Links to an eval run's and a dataset's page, so their paths are written once.

type LinkProps = { className?: string; children?: ReactNode };

const LINK = "text-blue-700 hover:underline";

/** A link to the eval run's page, its id as the text unless children say otherwise. */
export function EvalRunLink({ id, className = LINK, children }: LinkProps & { id: string }) {
  return (
    <ConsoleLink href={`/evals/runs/${encodeURIComponent(id)}`} className={className}>
      {children ?? id}
    </ConsoleLink>
  );
}

/** A link to the dataset's page, its name as the text. */
export function DatasetLink({ name, className = LINK }: Omit<LinkProps, "children"> & { name: string }) {
  return (
    <ConsoleLink href={`/evals/datasets/${encodeURIComponent(name)}`} className={className}>
      {name}
    </ConsoleLink>
  );
}
