import type { DecisionKind } from "@/lib/runtime/types";

export function FieldErrorList({ id, messages }: { id: string; messages: string[] }) {
  return (
    <ul id={id} className="mt-1 space-y-0.5 text-xs text-red-700">
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

const inputClass = "block w-full rounded border border-zinc-300 px-2 py-1.5 text-sm text-zinc-900 focus:border-blue-600 focus:outline-none focus:ring-1 focus:ring-blue-600 aria-invalid:border-red-500";

type DecisionFieldsProps = { decision: DecisionKind; proposedArgs: string; fieldErrors?: Record<string, string[]> };

/** The inputs one decision needs. Edit: the server's field errors (keyed by argument path) under the JSON. */
export function DecisionFields({ decision, proposedArgs, fieldErrors = {} }: DecisionFieldsProps) {
  if (decision === "approve") return <p className="text-sm text-zinc-600">Approve exactly the proposed action and arguments.</p>;
  if (decision === "edit") {
    const messages = Object.entries(fieldErrors)
      .filter(([key]) => key !== "_" && key !== "decision")
      .flatMap(([key, list]) => list.map((message) => (key === "args" ? message : `${key}: ${message}`)));
    return (
      <div>
        <label htmlFor="decision-args" className="mb-1 block text-xs font-medium text-zinc-700">
          Arguments (JSON)
        </label>
        <textarea
          id="decision-args"
          name="args"
          rows={10}
          defaultValue={proposedArgs}
          spellCheck={false}
          aria-invalid={messages.length > 0 || undefined}
          aria-describedby={messages.length > 0 ? "decision-args-errors" : undefined}
          className={`${inputClass} font-mono text-xs`}
        />
        {messages.length > 0 && <FieldErrorList id="decision-args-errors" messages={messages} />}
      </div>
    );
  }
  const name = decision === "reject" ? "reason" : "instruction";
  const label = decision === "reject" ? "Reason (the agent receives it)" : "Instruction for the agent";
  const messages = fieldErrors[name] ?? [];
  return (
    <div>
      <label htmlFor={`decision-${name}`} className="mb-1 block text-xs font-medium text-zinc-700">
        {label}
      </label>
      <textarea
        id={`decision-${name}`}
        name={name}
        rows={3}
        required
        aria-invalid={messages.length > 0 || undefined}
        aria-describedby={messages.length > 0 ? `decision-${name}-errors` : undefined}
        className={inputClass}
      />
      {messages.length > 0 && <FieldErrorList id={`decision-${name}-errors`} messages={messages} />}
    </div>
  );
}
