"use client";
import { useMemo, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { TextareaField } from "@/components/ui/labelled-fields";
import { diffArgs } from "@/lib/inbox/diff";
import { initialFormValues, readFormValues, type FieldErrors, type FormValues } from "@/lib/inbox/form-values";
import { buildFormModel, type JsonSchema } from "@/lib/inbox/schema-form";
import { ArgsDiff } from "./args-diff";
import { ArgsFormFields } from "./args-form";

type EditFormProps = {
  proposedArgs: unknown;
  argsSchema: JsonSchema | null;
  serverErrors?: FieldErrors;
  isBusy: boolean;
  onSubmit: (args: unknown) => void;
};

/**
 * Edit the arguments in a form generated from the tool's schema (or as JSON when the schema has no
 * form), checked here before sending — the runtime checks again — with the diff against the proposal.
 */
export function EditForm({ proposedArgs, argsSchema, serverErrors = {}, isBusy, onSubmit }: EditFormProps) {
  const model = useMemo(() => buildFormModel(argsSchema), [argsSchema]);
  const [values, setValues] = useState<FormValues>(() => (model ? initialFormValues(model, proposedArgs) : {}));
  const [jsonText, setJsonText] = useState(() => JSON.stringify(proposedArgs, null, 2));
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const [touchedSinceServer, setTouched] = useState(false);

  const read = useMemo(() => {
    if (model) return readFormValues(model, values);
    try {
      return { ok: true as const, args: JSON.parse(jsonText) as unknown };
    } catch {
      return { ok: false as const, fieldErrors: { _: ["The arguments are not valid JSON."] } };
    }
  }, [model, values, jsonText]);
  const diff = read.ok ? diffArgs(proposedArgs, read.args) : null;
  const errors = { ...(touchedSinceServer ? {} : serverErrors), ...clientErrors };

  function change(path: string, value: string | boolean) {
    setValues((current) => ({ ...current, [path]: value }));
    setClientErrors(({ [path]: _cleared, ...rest }) => rest);
    setTouched(true);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setTouched(false);
    if (!read.ok) {
      setClientErrors(read.fieldErrors);
      return;
    }
    setClientErrors({});
    onSubmit(read.args);
  }

  const jsonError =
    [
      ...(errors._ ?? []),
      ...Object.entries(errors)
        .filter(([k]) => !model && k !== "_")
        .map(([k, m]) => `${k}: ${m.join(" ")}`),
    ].join(" ") || null;
  const errorCount = Object.keys(errors).length;
  return (
    <form onSubmit={submit} noValidate aria-label="Edit the arguments" className="space-y-3">
      {model ? (
        <ArgsFormFields fields={model.fields} values={values} errors={errors} onChange={change} />
      ) : (
        <TextareaField
          id="decision-args"
          label="Arguments (JSON)"
          rows={10}
          spellCheck={false}
          value={jsonText}
          error={jsonError}
          onChange={(e) => {
            setJsonText(e.target.value);
            setClientErrors({});
            setTouched(true);
          }}
          controlClassName="font-mono text-xs"
        />
      )}
      {errorCount > 0 && (
        <p role="alert" className="text-sm text-red-800">
          {errorCount === 1 ? "One argument is not valid" : `${errorCount} arguments are not valid`}: fix{" "}
          {errorCount === 1 ? "it" : "them"} before approving.
        </p>
      )}
      <div>
        <h3 className="mb-1 text-xs font-medium text-zinc-700">Changes against the proposal</h3>
        {diff ? (
          <ArgsDiff entries={diff} />
        ) : (
          <p className="text-sm text-zinc-500">Fix the arguments to see the changes.</p>
        )}
      </div>
      <Button type="submit" variant="primary" isBusy={isBusy}>
        Edit and approve
      </Button>
    </form>
  );
}
