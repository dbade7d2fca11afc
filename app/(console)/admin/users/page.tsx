import type { Metadata } from "next";
import { AdminColumns } from "@/components/admin/admin-columns";
import { defineAdminPage } from "@/components/admin/admin-page";
import { AuditList } from "@/components/admin/audit-list";
import { CreateUserForm } from "@/components/admin/users/create-user-form";
import { UsersTable } from "@/components/admin/users/users-table";
import { EmptyState } from "@/components/ui/empty-state";
import { TitledSection } from "@/components/ui/titled-section";
import { findAdminAudit } from "@/lib/queries/audit";
import { findUsers } from "@/lib/queries/users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Users" };

export default defineAdminPage(
  {
    title: "Users",
    description: "People who sign in to the console, and their roles. A change applies at their next click.",
  },
  async ({ user }) => {
    const [users, audit] = await Promise.all([findUsers(), findAdminAudit(["users."])]);
    return (
      <AdminColumns
        asideWidth="narrow"
        aside={
          <>
            <CreateUserForm />
            <AuditList title="Recent changes to people" entries={audit} />
          </>
        }
      >
        <TitledSection headingId="users-list-title" title="People">
          {users.length === 0 ? (
            <EmptyState title="No users yet">Add the first person with the form.</EmptyState>
          ) : (
            <UsersTable users={users} currentUserId={user.id} />
          )}
        </TitledSection>
      </AdminColumns>
    );
  },
);
