import type { Metadata } from "next";
import { AdminColumns } from "@/components/admin/admin-columns";
import { defineAdminPage } from "@/components/admin/admin-page";
import { CreateWorkspaceForm } from "@/components/admin/workspaces/create-workspace-form";
import { PutMemberForm } from "@/components/admin/workspaces/put-member-form";
import { RemoveMemberButton } from "@/components/admin/workspaces/remove-member-button";
import { DataTable, type Column } from "@/components/ui/data-table";
import { TitledSection } from "@/components/ui/titled-section";
import { ROLE_LABELS } from "@/lib/auth/rbac";
import {
  findAllWorkspaces,
  findWorkspaceMembers,
  isInstanceAdmin,
  type WorkspaceMember,
} from "@/lib/queries/workspaces";
import { workspacePath } from "@/lib/workspaces/paths";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Workspaces" };

export default defineAdminPage(
  {
    title: "Workspaces",
    description: ({ user }) =>
      `People of ${user.workspace!.name} and their role here. Runs, packets, rules, tools, tokens and the audit log belong to one workspace.`,
  },
  async ({ user }) => {
    const workspace = user.workspace!;
    const [members, canCreate] = await Promise.all([findWorkspaceMembers(workspace.id), isInstanceAdmin(user.id)]);
    const all = canCreate ? await findAllWorkspaces() : [];
    const memberColumns: Column<WorkspaceMember>[] = [
      { header: "Person", cell: (m) => (m.name ? `${m.name} · ${m.email}` : m.email) },
      { header: "Role here", cell: (m) => `${ROLE_LABELS[m.role]}${m.instanceAdmin ? " (instance admin)" : ""}` },
      {
        header: "Actions",
        isHeaderHidden: true,
        className: "text-right",
        cell: (m) => m.removable && <RemoveMemberButton email={m.email} workspaceName={workspace.name} />,
      },
    ];
    return (
      <AdminColumns
        aside={
          <>
            <PutMemberForm workspaceName={workspace.name} />
            {canCreate && <CreateWorkspaceForm />}
          </>
        }
      >
        <TitledSection headingId="members-title" title={`People of ${workspace.name}`}>
          <DataTable columns={memberColumns} rows={members} rowKey={(m) => m.email} />
        </TitledSection>
        {canCreate && (
          <TitledSection headingId="all-workspaces-title" title="All workspaces">
            <ul className="space-y-1 text-sm">
              {all.map((w) => (
                <li key={w.id}>
                  <a className="text-blue-700 hover:underline" href={workspacePath(w.slug, "/inbox")}>
                    {w.name}
                  </a>{" "}
                  <code className="text-xs text-zinc-500">/w/{w.slug}</code>
                </li>
              ))}
            </ul>
          </TitledSection>
        )}
      </AdminColumns>
    );
  },
);
