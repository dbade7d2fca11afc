import { Badge } from "@/components/ui/badge";
import { DataTable, type Column } from "@/components/ui/data-table";
import { JsonView } from "@/components/ui/json-view";
import type { ToolRow } from "@/lib/queries/tools";
import { CAPABILITY_INFO, SEMANTICS_INFO } from "./semantics";
import { ToggleToolButton } from "./toggle-tool-button";

const SOURCE_LABEL = { "built-in": "built-in", http: "HTTP", mcp: "MCP" } as const;

const COLUMNS: Column<ToolRow>[] = [
  {
    header: "Tool",
    className: "max-w-sm",
    cell: (tool) => (
      <>
        <span className="font-mono text-xs font-medium">{tool.name}</span>{" "}
        <Badge tone={tool.source === "built-in" ? "gray" : "violet"}>{SOURCE_LABEL[tool.source]}</Badge>
        <p className="mt-1 text-xs text-zinc-600">{tool.description}</p>
        {tool.createdBy && <p className="mt-0.5 text-xs text-zinc-500">registered by {tool.createdBy}</p>}
      </>
    ),
  },
  {
    header: "Capability",
    cell: (tool) => (
      <>
        <Badge tone={tool.capability === "execute" ? "amber" : "gray"}>{tool.capability}</Badge>
        <span className="mt-1 block text-xs text-zinc-500">{CAPABILITY_INFO[tool.capability]}</span>
      </>
    ),
  },
  {
    header: "Effect semantics",
    className: "max-w-56",
    cell: (tool) => (
      <>
        <Badge tone={SEMANTICS_INFO[tool.semantics]?.tone ?? "gray"}>{tool.semantics}</Badge>
        <span className="mt-1 block text-xs text-zinc-500">{SEMANTICS_INFO[tool.semantics]?.meaning}</span>
      </>
    ),
  },
  {
    header: "Impact",
    className: "max-w-56 text-xs",
    cell: (tool) => (
      <>
        {tool.impact ? <span>“{tool.impact}”</span> : <span className="text-zinc-500">—</span>}
        {tool.impact && tool.source === "built-in" && (
          <span className="block text-zinc-500">(with example arguments)</span>
        )}
      </>
    ),
  },
  {
    header: "Input schema",
    className: "max-w-64 whitespace-nowrap",
    cell: (tool) => <JsonView value={tool.inputSchema} label="JSON Schema" />,
  },
  {
    header: "Status",
    isHeaderHidden: true,
    className: "text-right",
    cell: (tool) => (
      <>
        {tool.disabledAt && (
          <span className="mb-1 block">
            <Badge tone="red">Disabled</Badge>
          </span>
        )}
        {tool.id ? (
          <ToggleToolButton toolId={tool.id} name={tool.name} isDisabled={tool.disabledAt !== null} />
        ) : (
          <span className="whitespace-nowrap text-xs text-zinc-500">always on</span>
        )}
      </>
    ),
  },
];

export function ToolsTable({ tools }: { tools: ToolRow[] }) {
  return (
    <DataTable
      columns={COLUMNS}
      rows={tools}
      rowKey={(tool) => tool.id ?? tool.name}
      caption="The tool registry"
      rowClassName={(tool) => (tool.disabledAt ? "bg-zinc-50" : undefined)}
    />
  );
}
