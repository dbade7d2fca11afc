import { ConsoleForm, ConsoleLink } from "@/components/shell/console-links";
import { FilterActions } from "@/components/shell/filter-form";
import { Field, Input, Select } from "@/components/ui/field";
import type { RunListFilter } from "@/lib/queries/run-list";
import { runsListHref } from "./list-href";

// A plain GET form: it works before any JavaScript loads, and the URL is the filter (shareable, back button).
export function RunsSearchForm({ filter, agents }: { filter: RunListFilter; agents: string[] }) {
  return (
    <ConsoleForm role="search" action="/runs" method="get" className="mb-3 flex flex-wrap items-end gap-3">
      {filter.status && <input type="hidden" name="status" value={filter.status} />}
      {filter.agent && filter.version && <input type="hidden" name="version" value={filter.version} />}
      <Field
        id="runs-q"
        label="Search"
        hint="A run id (or its start), or text in the run's input"
        className="min-w-64 flex-1"
      >
        <Input
          id="runs-q"
          name="q"
          type="search"
          defaultValue={filter.q ?? ""}
          placeholder="run_… or order id, reason…"
          aria-describedby="runs-q-hint"
        />
      </Field>
      <Field id="runs-agent" label="Agent" className="w-52">
        <Select id="runs-agent" name="agent" defaultValue={filter.agent ?? ""}>
          <option value="">All agents</option>
          {agents.map((slug) => (
            <option key={slug} value={slug}>
              {slug}
            </option>
          ))}
        </Select>
      </Field>
      <FilterActions
        clearHref="/runs"
        isActive={Boolean(filter.q || filter.agent || filter.status || filter.version)}
      />
      {/* The agents page links here with a version; shown, so a filter nobody can see never empties the list. */}
      {filter.agent && filter.version && (
        <p className="w-full text-sm text-zinc-700">
          Only version <span className="font-mono">{filter.version}</span> of {filter.agent} ·{" "}
          <ConsoleLink
            href={runsListHref({ ...filter, version: undefined, cursor: undefined })}
            className="text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            every version
          </ConsoleLink>
        </p>
      )}
    </ConsoleForm>
  );
}
