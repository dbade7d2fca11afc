import { ROLE_LABELS, type SessionUser } from "@/lib/auth/rbac";

// Who is signed in, with which role, and the way out. Signing out is a plain form post to /signout
// (app/(auth)/signout/route.ts: why not a server action is said there), so it works without JavaScript.
export function UserMenu({ user }: { user: SessionUser }) {
  return (
    <section aria-label="Signed in as" className="rounded-md border border-zinc-800 px-3 py-2">
      <p className="truncate text-sm text-zinc-100" title={user.email}>
        {user.name ?? user.email}
      </p>
      {user.name && (
        <p className="truncate text-xs text-zinc-400" title={user.email}>
          {user.email}
        </p>
      )}
      <p className="mt-1 text-xs text-zinc-400">
        Role: <span className="font-medium text-zinc-200">{ROLE_LABELS[user.role]}</span>
      </p>
      <form action="/signout" method="post" className="mt-2">
        <button
          type="submit"
          className="w-full rounded border border-zinc-700 px-2 py-1 text-xs text-zinc-300 hover:bg-zinc-900 hover:text-white focus-visible:outline-2 focus-visible:outline-blue-500"
        >
          Sign out
        </button>
      </form>
    </section>
  );
}
