import { ConsoleLink } from "@/components/shell/console-links";
import { EmptyState } from "@/components/ui/empty-state";

export default function RunNotFound() {
  return (
    <EmptyState title="Run not found">
      There is no run with this id.{" "}
      <ConsoleLink href="/runs" className="text-blue-700 hover:underline">
        Back to runs
      </ConsoleLink>
    </EmptyState>
  );
}
