import type { ReactNode } from "react";
import { Sidebar } from "@/components/shell/sidebar";
import { requirePageUser } from "@/lib/auth/session";

// Every console page needs a signed-in person: the proxy redirects without a session cookie, and this
// server-side check also refuses a session whose user was disabled or deleted since.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  return (
    <div className="flex min-h-screen">
      <Sidebar user={user} />
      <main className="min-w-0 flex-1 px-8 py-6">{children}</main>
    </div>
  );
}
