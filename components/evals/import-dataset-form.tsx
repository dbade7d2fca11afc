"use client";
import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { useWorkspaceHref } from "@/components/shell/console-links";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { describedBy, Field, Input, Textarea } from "@/components/ui/field";
import { importDatasetAction } from "@/lib/actions/evals";
import { InvalidLines } from "./invalid-lines";

type ExistingDataset = { name: string; caseCount: number; version: string };
type Failure = { message: string; fieldErrors?: Record<string, string[]> };

/** Upload or paste a JSONL dataset; the server validates every line and imports all of it or nothing. */
export function ImportDatasetForm({ existing }: { existing: ExistingDataset[] }) {
  const router = useRouter();
  const inWorkspace = useWorkspaceHref();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [jsonl, setJsonl] = useState("");
  const [failure, setFailure] = useState<Failure | null>(null);
  const [isConfirming, setIsConfirming] = useState(false);
  const [isPending, startTransition] = useTransition();
  const replaced = existing.find((d) => d.name === name.trim());
  const errors = failure?.fieldErrors ?? {};

  async function readFile(file: File | undefined) {
    if (!file) return;
    setJsonl(await file.text());
    if (!name)
      setName(
        file.name
          .replace(/\.jsonl?$/i, "")
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, "-")
          .replace(/^[^a-z0-9]+/, "")
          .slice(0, 64),
      );
  }

  function submit() {
    setIsConfirming(false);
    startTransition(async () => {
      const result = await importDatasetAction({ name, description, jsonl });
      if (result.ok) {
        router.push(
          inWorkspace(`/evals/datasets/${encodeURIComponent(result.data.name)}?imported=${result.data.caseCount}`),
        );
      } else {
        setFailure({ message: result.message, fieldErrors: result.fieldErrors });
      }
    });
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (replaced) setIsConfirming(true);
    else submit();
  }

  return (
    <form onSubmit={onSubmit} className="max-w-3xl space-y-4" aria-describedby={failure ? "import-failure" : undefined}>
      {failure && (
        <div id="import-failure">
          <Alert tone="error" title="The dataset was not imported">
            <p>{failure.message}</p>
          </Alert>
        </div>
      )}
      <Field
        id="dataset-name"
        label="Dataset name"
        hint="Lower-case letters, digits, '.', '_' or '-'. Importing under an existing name replaces its cases."
        error={errors.name?.join(" ")}
      >
        <Input
          id="dataset-name"
          name="name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          autoComplete="off"
          error={errors.name?.join(" ")}
          {...describedBy("dataset-name", errors.name?.join(" "), true)}
        />
      </Field>
      {replaced && (
        <Alert tone="warning">
          A dataset named <strong>{replaced.name}</strong> exists ({replaced.caseCount} cases, version{" "}
          <code className="font-mono text-xs">{replaced.version}</code>): importing replaces its cases. Past eval runs
          keep their results.
        </Alert>
      )}
      <Field id="dataset-description" label="Description (optional)" error={errors.description?.join(" ")}>
        <Input
          id="dataset-description"
          name="description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={errors.description?.join(" ")}
          {...describedBy("dataset-description", errors.description?.join(" "))}
        />
      </Field>
      <Field
        id="dataset-file"
        label="JSONL file"
        hint="Choosing a file fills the text below; you can still edit it before importing."
      >
        <input
          id="dataset-file"
          type="file"
          accept=".jsonl,.json,.txt,application/jsonl,application/x-ndjson,text/plain"
          onChange={(e) => void readFile(e.target.files?.[0])}
          aria-describedby="dataset-file-hint"
          className="block text-sm text-zinc-700 file:mr-3 file:rounded file:border file:border-zinc-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium file:text-zinc-800 hover:file:bg-zinc-50"
        />
      </Field>
      <Field
        id="dataset-jsonl"
        label="Cases (JSONL: one case a line)"
        hint="Blank lines and lines starting with // are skipped."
        error={errors.jsonl ? "Fix the lines listed below." : null}
      >
        <Textarea
          id="dataset-jsonl"
          name="jsonl"
          value={jsonl}
          onChange={(e) => setJsonl(e.target.value)}
          rows={14}
          spellCheck={false}
          required
          className="font-mono text-xs"
          error={errors.jsonl ? "invalid" : null}
          {...describedBy("dataset-jsonl", errors.jsonl ? "invalid" : null, true)}
        />
      </Field>
      {errors.jsonl && <InvalidLines lines={errors.jsonl} />}
      <Button type="submit" variant="primary" isBusy={isPending}>
        {isPending ? "Importing…" : "Import dataset"}
      </Button>
      <ConfirmDialog
        isOpen={isConfirming}
        title={`Replace the cases of ${replaced?.name ?? "the dataset"}?`}
        confirmLabel="Replace cases"
        confirmVariant="danger"
        onConfirm={submit}
        onCancel={() => setIsConfirming(false)}
      >
        Its {replaced?.caseCount ?? 0} cases are replaced by the ones you import, and its version changes. Eval runs
        already stored keep their results.
      </ConfirmDialog>
    </form>
  );
}
