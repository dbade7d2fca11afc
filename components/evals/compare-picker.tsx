import { ConsoleForm } from "@/components/shell/console-links";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";
import type { EvalRunSummary } from "@/lib/queries/eval-records";
import { shortCode } from "./format";

const optionLabel = (run: EvalRunSummary) =>
  `${run.startedAt.toISOString().slice(0, 16).replace("T", " ")} · ${run.datasetName} · ${shortCode(run.codeVersion)} · ${run.faults} · ${run.status.toLowerCase()} (${run.id})`;

/** Pick two eval runs; a plain GET form, so the comparison has a URL to share. */
export function ComparePicker({ runs, a, b }: { runs: EvalRunSummary[]; a?: string; b?: string }) {
  return (
    <ConsoleForm
      action="/evals/compare"
      method="get"
      className="mb-6 grid items-end gap-3 rounded-lg border border-zinc-200 bg-white p-4 md:grid-cols-[1fr_1fr_auto]"
    >
      <RunSelect id="compare-a" name="a" label="Baseline (A)" value={a} runs={runs} />
      <RunSelect id="compare-b" name="b" label="Candidate (B)" value={b} runs={runs} />
      <Button type="submit" variant="primary">
        Compare
      </Button>
    </ConsoleForm>
  );
}

function RunSelect({
  id,
  name,
  label,
  value,
  runs,
}: {
  id: string;
  name: string;
  label: string;
  value?: string;
  runs: EvalRunSummary[];
}) {
  return (
    <Field id={id} label={label}>
      <Select id={id} name={name} defaultValue={value ?? ""} required>
        <option value="" disabled>
          Choose an eval run
        </option>
        {runs.map((run) => (
          <option key={run.id} value={run.id}>
            {optionLabel(run)}
          </option>
        ))}
      </Select>
    </Field>
  );
}
