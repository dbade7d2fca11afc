import type { ReactNode } from "react";
import { QueryProvider } from "@/components/providers/query-provider";
import { WorkspaceSlugProvider } from "@/components/shell/console-links";
import { Sidebar } from "@/components/shell/sidebar";
import { requirePageUser } from "@/lib/auth/session";
import { findConsoleWorkspaces } from "@/lib/queries/console-pages";

// Every console page needs a signed-in person: the proxy redirects without a session cookie, and this
// server-side check also refuses a session whose user was disabled or deleted since. The query
// provider wraps the sidebar too: its inbox count is a live query.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  const workspaces = await findConsoleWorkspaces(user.id);
  return (
    <QueryProvider>
      <WorkspaceSlugProvider slug={user.workspace?.slug ?? "default"}>
        <div className="flex min-h-screen">
          {/* The column stretches with the page (its background reaches the bottom); the sidebar in it stays in view. */}
          <div className="shrink-0 bg-zinc-950">
            <Sidebar user={user} workspaces={workspaces} />
          </div>
          <main className="min-w-0 flex-1 px-8 py-6">{children}</main>
        </div>
      </WorkspaceSlugProvider>
    </QueryProvider>
  );
}
