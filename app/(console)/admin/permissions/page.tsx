import type { Metadata } from "next";
import { defineAdminPage } from "@/components/admin/admin-page";
import { CellEditor } from "@/components/admin/permissions/cell-editor";
import { EffectBadge } from "@/components/admin/permissions/effect-badge";
import { PermissionHistory } from "@/components/admin/permissions/permission-history";
import { PermissionMatrixTable } from "@/components/admin/permissions/permission-matrix";
import { Card } from "@/components/ui/card";
import { cellKey, findCellHistory, findPermissionHistory, getPermissionMatrix } from "@/lib/queries/permissions";
import { firstParam } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Permissions" };

export default defineAdminPage(
  {
    title: "Permissions",
    description:
      "Which agent may use which tool, at which step: deny, allow, or require a person's approval. The engine reads these at the moment of acting, so a change applies to the next action of every run — paused ones included.",
  },
  async ({ searchParams }) => {
    const [matrix, history] = await Promise.all([getPermissionMatrix(), findPermissionHistory()]);
    const agentParam = firstParam(searchParams.agent);
    const toolParam = firstParam(searchParams.tool);
    const cell = agentParam && toolParam ? matrix.cells[cellKey(agentParam, toolParam)] : undefined;
    const cellHistory = cell ? await findCellHistory(cell.agent, cell.tool) : [];
    const agent = cell ? matrix.agents.find((a) => a.slug === cell.agent) : undefined;

    return (
      <>
        <div className="mb-3 flex flex-wrap items-center gap-3 text-xs text-zinc-600" aria-label="Legend">
          <EffectBadge effect="allow" /> <EffectBadge effect="require_approval" /> <EffectBadge effect="deny" />
          <EffectBadge effect="allow" isInherited /> <span>dashed: inherited from a wildcard (*) rule</span>
          <span>— : no rule, denied</span>
        </div>
        <PermissionMatrixTable matrix={matrix} selected={cell ? { agent: cell.agent, tool: cell.tool } : null} />

        <div className="mt-6 grid gap-6 xl:grid-cols-2">
          <section id="cell-editor" aria-labelledby="cell-editor-title" className="min-w-0 scroll-mt-6">
            <h2 id="cell-editor-title" className="mb-2 text-base font-semibold text-zinc-900">
              {cell ? (
                <>
                  <span className="font-mono">{cell.agent}</span> × <span className="font-mono">{cell.tool}</span>
                </>
              ) : (
                "Edit a cell"
              )}
            </h2>
            {cell ? (
              <CellEditor
                agent={cell.agent}
                tool={cell.tool}
                rules={cell.rules}
                inherited={cell.inherited}
                steps={agent?.steps ?? []}
              />
            ) : (
              <Card>
                <p className="text-sm text-zinc-600">
                  {agentParam || toolParam
                    ? "That agent × tool pair is not in the matrix."
                    : "Choose a cell of the matrix to see and edit its rules."}
                </p>
              </Card>
            )}
          </section>
          {cell && (
            <section aria-labelledby="cell-history-title" className="min-w-0">
              <h2 id="cell-history-title" className="mb-2 text-base font-semibold text-zinc-900">
                History of this cell
              </h2>
              <PermissionHistory changes={cellHistory} caption={`Changes of ${cell.agent} × ${cell.tool}`} isCell />
            </section>
          )}
        </div>
        <section aria-labelledby="history-title" className="mt-6 min-w-0">
          <h2 id="history-title" className="mb-2 text-base font-semibold text-zinc-900">
            All changes
          </h2>
          <PermissionHistory changes={history} caption="Every permission change, newest first" />
        </section>
      </>
    );
  },
);
