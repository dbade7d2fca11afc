"use client";
import { type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { changeUserRoleAction, setUserDisabledAction } from "@/lib/actions/users";
import { ROLE_LABELS, type Role } from "@/lib/auth/rbac";
import { ActionMessage } from "../action-message";
import { EnableToggle } from "../enable-toggle";
import { RoleSelect } from "../role-select";
import { useAdminAction } from "../use-admin-action";

type UserRowActionsProps = { userId: string; email: string; role: Role; isDisabled: boolean; isSelf: boolean };

/** Change a person's role; disable or enable their account. Your own account: neither (the server refuses too). */
export function UserRoleForm({ userId, email, role, isSelf }: Omit<UserRowActionsProps, "isDisabled">) {
  const { run, isPending, outcome } = useAdminAction(changeUserRoleAction, {
    success: (c) => `${c.email} is now ${ROLE_LABELS[c.after.role as Role].toLowerCase()}.`,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    run({ userId, role: String(new FormData(event.currentTarget).get("role")) as Role });
  }
  const id = `role-${userId}`;
  // min-w-max: the select is never narrower than its longest role. A width class here loses to the control's
  // own w-full (Tailwind's stylesheet puts w-full after w-32), and a table gives a percentage-wide select no
  // minimum width: at 1400 px the table squeezed it until "Operator" was cut.
  return (
    <form onSubmit={submit} className="flex flex-col gap-1">
      <div className="flex items-center gap-2">
        <label htmlFor={id} className="sr-only">
          Role of {email}
        </label>
        <RoleSelect
          id={id}
          name="role"
          defaultValue={role}
          disabled={isSelf}
          className="min-w-max"
          aria-describedby={isSelf ? `${id}-self` : undefined}
        />
        {!isSelf && (
          <Button size="sm" type="submit" isBusy={isPending} aria-label={`Change role of ${email}`}>
            Change
          </Button>
        )}
      </div>
      {isSelf && (
        <p id={`${id}-self`} className="text-xs text-zinc-500">
          You cannot change your own role.
        </p>
      )}
      <ActionMessage outcome={outcome} />
    </form>
  );
}

export function UserDisableButton({ userId, email, isDisabled, isSelf }: Omit<UserRowActionsProps, "role">) {
  const { run, isPending, outcome } = useAdminAction(setUserDisabledAction, {
    success: (c) => `${c.email} is ${c.after.disabled ? "disabled" : "enabled"}.`,
  });
  if (isSelf) return <span className="text-xs text-zinc-500">This is you</span>;
  return (
    <EnableToggle
      name={email}
      isDisabled={isDisabled}
      isBusy={isPending}
      onToggle={() => run({ userId, isDisabled: !isDisabled })}
      message={<ActionMessage outcome={outcome} />}
    />
  );
}
