import type { Metadata } from "next";
import { AdminColumns } from "@/components/admin/admin-columns";
import { getAdminPageAccess } from "@/components/admin/admin-page";
import { CreateWorkspaceForm } from "@/components/admin/workspaces/create-workspace-form";
import { PutMemberForm } from "@/components/admin/workspaces/put-member-form";
import { RemoveMemberButton } from "@/components/admin/workspaces/remove-member-button";
import { AccessDenied } from "@/components/shell/access-denied";
import { PageHeader } from "@/components/ui/page-header";
import { TitledSection } from "@/components/ui/titled-section";
import { ROLE_LABELS } from "@/lib/auth/rbac";
import { findAllWorkspaces, findWorkspaceMembers, isInstanceAdmin } from "@/lib/queries/workspaces";
import { workspacePath } from "@/lib/workspaces/paths";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Workspaces" };

export default async function WorkspacesPage() {
  const { user, isAllowed } = await getAdminPageAccess();
  if (!isAllowed) return <AccessDenied role={user.role} scope="admin:manage" />;
  const workspace = user.workspace!;
  const [members, canCreate] = await Promise.all([findWorkspaceMembers(workspace.id), isInstanceAdmin(user.id)]);
  const all = canCreate ? await findAllWorkspaces() : [];
  return (
    <>
      <PageHeader
        title="Workspaces"
        description={`People of ${workspace.name} and their role here. Runs, packets, rules, tools, tokens and the audit log belong to one workspace.`}
      />
      <AdminColumns
        aside={
          <>
            <PutMemberForm workspaceName={workspace.name} />
            {canCreate && <CreateWorkspaceForm />}
          </>
        }
      >
        <TitledSection headingId="members-title" title={`People of ${workspace.name}`}>
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-zinc-500">
              <tr>
                <th className="py-1">Person</th>
                <th className="py-1">Role here</th>
                <th className="py-1">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.email} className="border-t border-zinc-200">
                  <td className="py-1.5">
                    {m.name ? `${m.name} · ` : ""}
                    {m.email}
                  </td>
                  <td className="py-1.5">
                    {ROLE_LABELS[m.role]}
                    {m.instanceAdmin ? " (instance admin)" : ""}
                  </td>
                  <td className="py-1.5 text-right">
                    {m.removable && <RemoveMemberButton email={m.email} workspaceName={workspace.name} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
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
    </>
  );
}
