import { CAPABILITIES, type Capability, type PermissionRule } from "@/lib/runtime/types";

const CAPABILITY_HINTS: Record<Capability, string> = {
  read: "look things up",
  draft: "prepare something for a person",
  approve: "approve in another system",
  execute: "change the world: pay, send, deploy",
};

type GrantFieldsProps = { idPrefix: string; rule: PermissionRule | null; error: (path: string) => string | null };

/**
 * What the rule grants: the capabilities (a call whose tool needs another is denied) and whether a call
 * that changes something must rest on fresh evidence. Uncontrolled: the form reads them on submit.
 */
export function GrantFields({ idPrefix, rule, error }: GrantFieldsProps) {
  const granted = rule?.capabilities ?? CAPABILITIES;
  const capabilitiesError = error("capabilities");
  return (
    <div className="space-y-2">
      <fieldset aria-describedby={capabilitiesError ? `${idPrefix}-capabilities-error` : undefined}>
        <legend className="text-sm font-medium text-zinc-800">Grants</legend>
        <p className="text-xs text-zinc-500">
          What the agent may do with the tool. A call whose tool needs another capability is denied.
        </p>
        <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
          {CAPABILITIES.map((capability) => (
            <label
              key={capability}
              className="flex items-center gap-1.5 text-sm text-zinc-800"
              title={CAPABILITY_HINTS[capability]}
            >
              <input
                type="checkbox"
                name="capabilities"
                value={capability}
                defaultChecked={granted.includes(capability)}
                className="size-4 accent-blue-700"
              />
              {capability}
            </label>
          ))}
        </div>
        {capabilitiesError && (
          <p id={`${idPrefix}-capabilities-error`} className="mt-1 text-xs text-red-700">
            {capabilitiesError}
          </p>
        )}
      </fieldset>
      <label className="flex items-start gap-2 text-sm text-zinc-800">
        <input
          type="checkbox"
          name="freshEvidence"
          defaultChecked={rule?.freshEvidence ?? false}
          className="mt-0.5 size-4 accent-blue-700"
        />
        <span>
          Require fresh evidence
          <span className="block text-xs text-zinc-500">
            A call that changes something and rests only on the model&apos;s inferences or on expired reads asks a
            person first.
          </span>
        </span>
      </label>
    </div>
  );
}
