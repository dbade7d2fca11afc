// The browser side of the console's live views: GET a console route (/api/console/…) as JSON. A non-2xx
// answer becomes an Error carrying the route's own message ({ error: { message } }), for the view to show.
import { slugOfLocation, WORKSPACE_HEADER } from "./workspaces/paths";

/** A console route's request headers: JSON, and the page's workspace (the route reads and answers within it). */
export function consoleHeaders(): Record<string, string> {
  const slug = slugOfLocation();
  return { accept: "application/json", ...(slug ? { [WORKSPACE_HEADER]: slug } : {}) };
}

export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store", headers: consoleHeaders() });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `The server answered ${response.status}.`);
  }
  return (await response.json()) as T;
}
