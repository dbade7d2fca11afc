import type { ReactNode } from "react";

// Pages opened from a link in an email or a chat, without signing in: one centred column, no console chrome.
export default function LinkLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center bg-zinc-50 px-4 py-10">
      <div className="w-full max-w-xl space-y-4">{children}</div>
    </main>
  );
}
