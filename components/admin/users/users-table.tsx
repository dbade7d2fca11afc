import { Badge } from "@/components/ui/badge";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { UserRow } from "@/lib/queries/users";
import { UserDisableButton, UserRoleForm } from "./user-row-actions";

export function UsersTable({ users, currentUserId }: { users: UserRow[]; currentUserId: string }) {
  return (
    <Table>
      <caption className="sr-only">People who can sign in to the console</caption>
      <thead>
        <tr>
          <Th>Person</Th>
          <Th>Role</Th>
          <Th>Sign-in</Th>
          <Th>Added</Th>
          <Th>
            <span className="sr-only">Account</span>
          </Th>
        </tr>
      </thead>
      <tbody>
        {users.map((user) => {
          const isSelf = user.id === currentUserId;
          return (
            <tr key={user.id}>
              <Td>
                <span className="font-medium">{user.email}</span>
                {isSelf && <span className="ml-1 text-xs text-zinc-500">(you)</span>}
                {user.name && <span className="block text-xs text-zinc-500">{user.name}</span>}
              </Td>
              <Td>
                <UserRoleForm userId={user.id} email={user.email} role={user.role} isSelf={isSelf} />
              </Td>
              <Td>
                {user.disabledAt ? <Badge tone="red">Disabled</Badge> : <Badge tone="green">Active</Badge>}
                <span className="block text-xs text-zinc-500">
                  {user.hasPassword ? "password" : "single sign-on only"}
                </span>
              </Td>
              <Td>
                <Timestamp value={user.createdAt} />
              </Td>
              <Td className="text-right">
                <UserDisableButton
                  userId={user.id}
                  email={user.email}
                  isDisabled={user.disabledAt !== null}
                  isSelf={isSelf}
                />
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
