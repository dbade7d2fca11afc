import type { ComponentProps } from "react";
import { Select } from "@/components/ui/field";
import { ROLE_LABELS, ROLES } from "@/lib/auth/rbac";

/** A select of the console's roles, by their labels (name it "role"). */
export function RoleSelect(props: Omit<ComponentProps<typeof Select>, "children">) {
  return (
    <Select {...props}>
      {ROLES.map((role) => (
        <option key={role} value={role}>
          {ROLE_LABELS[role]}
        </option>
      ))}
    </Select>
  );
}
