import Link from "next/link";

export default function NotFound() {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-2">
      <h1 className="text-lg font-semibold">Page not found</h1>
      <Link href="/runs" className="text-sm text-blue-700 hover:underline">
        Go to runs
      </Link>
    </main>
  );
}
