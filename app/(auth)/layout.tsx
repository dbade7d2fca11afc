import type { ReactNode } from "react";

// Pages a person sees before signing in: no sidebar, one centred column.
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center bg-zinc-50 px-4 py-16 sm:items-center sm:py-8">
      <div className="w-full max-w-sm">{children}</div>
    </main>
  );
}
