import { Badge } from "@/components/ui/badge";
import { DataTable, type Column } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { UserRow } from "@/lib/queries/users";
import { UserDisableButton, UserRoleForm } from "./user-row-actions";

export function UsersTable({ users, currentUserId }: { users: UserRow[]; currentUserId: string }) {
  const isSelf = (user: UserRow) => user.id === currentUserId;
  const columns: Column<UserRow>[] = [
    {
      header: "Person",
      cell: (user) => (
        <>
          <span className="font-medium">{user.email}</span>
          {isSelf(user) && <span className="ml-1 text-xs text-zinc-500">(you)</span>}
          {user.name && <span className="block text-xs text-zinc-500">{user.name}</span>}
        </>
      ),
    },
    {
      header: "Role",
      cell: (user) => <UserRoleForm userId={user.id} email={user.email} role={user.role} isSelf={isSelf(user)} />,
    },
    {
      header: "Sign-in",
      cell: (user) => (
        <>
          {user.disabledAt ? <Badge tone="red">Disabled</Badge> : <Badge tone="green">Active</Badge>}
          <span className="block text-xs text-zinc-500">{user.hasPassword ? "password" : "single sign-on only"}</span>
        </>
      ),
    },
    { header: "Added", cell: (user) => <Timestamp value={user.createdAt} /> },
    {
      header: "Account",
      isHeaderHidden: true,
      className: "text-right",
      cell: (user) => (
        <UserDisableButton
          userId={user.id}
          email={user.email}
          isDisabled={user.disabledAt !== null}
          isSelf={isSelf(user)}
        />
      ),
    },
  ];
  return (
    <DataTable
      columns={columns}
      rows={users}
      rowKey={(user) => user.id}
      caption="People who can sign in to the console"
    />
  );
}
