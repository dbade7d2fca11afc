import type { ComponentProps } from "react";
import { Select } from "@/components/ui/field";
import { SelectOptions } from "@/components/ui/select-options";
import { ROLE_LABELS, ROLES } from "@/lib/auth/rbac";

/** The console's roles as <option>s, by their labels. */
export function RoleOptions() {
  return <SelectOptions values={ROLES} labelOf={(role) => ROLE_LABELS[role]} />;
}

/** A select of the console's roles (name it "role"). */
export function RoleSelect(props: Omit<ComponentProps<typeof Select>, "children">) {
  return (
    <Select {...props}>
      <RoleOptions />
    </Select>
  );
}
