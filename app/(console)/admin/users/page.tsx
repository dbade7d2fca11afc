import type { Metadata } from "next";
import { getAdminPageAccess } from "@/components/admin/admin-page";
import { AuditList } from "@/components/admin/audit-list";
import { CreateUserForm } from "@/components/admin/users/create-user-form";
import { UsersTable } from "@/components/admin/users/users-table";
import { AccessDenied } from "@/components/shell/access-denied";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { findAdminAudit } from "@/lib/queries/audit";
import { findUsers } from "@/lib/queries/users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const { user, isAllowed } = await getAdminPageAccess();
  if (!isAllowed) return <AccessDenied role={user.role} scope="admin:manage" />;
  const [users, audit] = await Promise.all([findUsers(), findAdminAudit(["users."])]);
  return (
    <>
      <PageHeader
        title="Users"
        description="People who sign in to the console, and their roles. A change applies at their next click."
      />
      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_22rem]">
        <section aria-labelledby="users-list-title" className="min-w-0">
          <h2 id="users-list-title" className="mb-2 text-sm font-semibold text-zinc-900">
            People
          </h2>
          {users.length === 0 ? (
            <EmptyState title="No users yet">Add the first person with the form.</EmptyState>
          ) : (
            <UsersTable users={users} currentUserId={user.id} />
          )}
        </section>
        <div className="space-y-6">
          <CreateUserForm />
          <AuditList title="Recent changes to people" entries={audit} />
        </div>
      </div>
    </>
  );
}
