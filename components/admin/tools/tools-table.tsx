import { Badge } from "@/components/ui/badge";
import { JsonView } from "@/components/ui/json-view";
import { Table, Td, Th } from "@/components/ui/table";
import type { ToolRow } from "@/lib/queries/tools";
import { CAPABILITY_INFO, SEMANTICS_INFO } from "./semantics";
import { ToggleToolButton } from "./toggle-tool-button";

const SOURCE_LABEL = { "built-in": "built-in", http: "HTTP", mcp: "MCP" } as const;

export function ToolsTable({ tools }: { tools: ToolRow[] }) {
  return (
    <Table>
      <caption className="sr-only">The tool registry</caption>
      <thead>
        <tr>
          <Th>Tool</Th>
          <Th>Capability</Th>
          <Th>Effect semantics</Th>
          <Th>Impact</Th>
          <Th>Input schema</Th>
          <Th>
            <span className="sr-only">Status</span>
          </Th>
        </tr>
      </thead>
      <tbody>
        {tools.map((tool) => {
          const semantics = SEMANTICS_INFO[tool.semantics];
          return (
            <tr key={tool.id ?? tool.name} className={tool.disabledAt ? "bg-zinc-50" : undefined}>
              <Td className="max-w-sm">
                <span className="font-mono text-xs font-medium">{tool.name}</span>{" "}
                <Badge tone={tool.source === "built-in" ? "gray" : "violet"}>{SOURCE_LABEL[tool.source]}</Badge>
                <p className="mt-1 text-xs text-zinc-600">{tool.description}</p>
                {tool.createdBy && <p className="mt-0.5 text-xs text-zinc-500">registered by {tool.createdBy}</p>}
              </Td>
              <Td>
                <Badge tone={tool.capability === "execute" ? "amber" : "gray"}>{tool.capability}</Badge>
                <span className="mt-1 block text-xs text-zinc-500">{CAPABILITY_INFO[tool.capability]}</span>
              </Td>
              <Td className="max-w-56">
                <Badge tone={semantics?.tone ?? "gray"}>{tool.semantics}</Badge>
                <span className="mt-1 block text-xs text-zinc-500">{semantics?.meaning}</span>
              </Td>
              <Td className="max-w-56 text-xs">
                {tool.impact ? <span>“{tool.impact}”</span> : <span className="text-zinc-500">—</span>}
                {tool.impact && tool.source === "built-in" && (
                  <span className="block text-zinc-500">(with example arguments)</span>
                )}
              </Td>
              <Td className="max-w-64 whitespace-nowrap">
                <JsonView value={tool.inputSchema} label="JSON Schema" />
              </Td>
              <Td className="text-right">
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
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
