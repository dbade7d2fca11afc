// Where the workspace sits in the console's URLs: /w/<slug>/inbox. Pure, for the proxy, the server and the browser.
export const WORKSPACE_HEADER = "x-tether-workspace";
export const WORKSPACE_COOKIE = "tether-workspace";
/** The query parameter that names it where a header cannot be sent (an EventSource's request). */
export const WORKSPACE_PARAM = "workspace";

/** The console's own pages that live inside a workspace (the rest: sign-in, decision links, the API). */
export const WORKSPACE_PAGES = ["inbox", "runs", "admin", "evals", "schedules"] as const;

const IN_WORKSPACE = /^\/w\/([a-z0-9][a-z0-9-]{0,39})(\/.*)?$/;

/** /w/acme/inbox → { slug: "acme", rest: "/inbox" }; null for a path outside a workspace. */
export function splitWorkspacePath(pathname: string): { slug: string; rest: string } | null {
  const match = IN_WORKSPACE.exec(pathname);
  return match ? { slug: match[1], rest: match[2] ?? "/" } : null;
}

/** Whether a path is a workspace page written without its workspace (an old URL, or a link inside the console). */
export function isWorkspacePage(pathname: string): boolean {
  const first = pathname.split("/")[1];
  return (WORKSPACE_PAGES as readonly string[]).includes(first);
}

export const workspacePath = (slug: string, rest: string) => `/w/${slug}${rest.startsWith("/") ? rest : `/${rest}`}`;

/** A console link written without its workspace ("/runs/run_1?x=y"), in the given one; any other href unchanged. */
export function hrefInWorkspace(slug: string, href: string): string {
  return href.startsWith("/") && isWorkspacePage(href.split(/[?#]/, 1)[0]) ? workspacePath(slug, href) : href;
}

/** A console route's URL naming the page's workspace (for an EventSource, which sends no headers of ours). */
export function withWorkspaceParam(url: string): string {
  const slug = slugOfLocation();
  return slug ? `${url}${url.includes("?") ? "&" : "?"}${WORKSPACE_PARAM}=${encodeURIComponent(slug)}` : url;
}

/** In the browser: the slug of the page's URL, for the console's fetches to name. */
export function slugOfLocation(): string | undefined {
  return typeof window === "undefined" ? undefined : (splitWorkspacePath(window.location.pathname)?.slug ?? undefined);
}
