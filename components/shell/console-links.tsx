"use client";
// Links and search forms inside the console name the page's workspace themselves (/w/<slug>/runs/…): a link written as "/runs/…" would
// otherwise cost a redirect, and that redirect goes to the workspace the browser opened last, which another tab
// may have changed.
import Link from "next/link";
import { createContext, useCallback, useContext, type ComponentProps, type ReactNode } from "react";
import { hrefInWorkspace } from "@/lib/workspaces/paths";

const WorkspaceSlug = createContext<string | null>(null);

/** Set once by the console layout: the workspace every page under it belongs to. */
export function WorkspaceSlugProvider({ slug, children }: { slug: string; children: ReactNode }) {
  return <WorkspaceSlug.Provider value={slug}>{children}</WorkspaceSlug.Provider>;
}

/** "/runs/x" → "/w/<slug>/runs/x" in the page's workspace (unchanged outside the console). For router.push. */
export function useWorkspaceHref(): (href: string) => string {
  const slug = useContext(WorkspaceSlug);
  return useCallback((href: string) => (slug ? hrefInWorkspace(slug, href) : href), [slug]);
}

/** next/link, with a console path written without its workspace led into the page's one. */
export function ConsoleLink({ href, ...props }: Omit<ComponentProps<typeof Link>, "href"> & { href: string }) {
  const inWorkspace = useWorkspaceHref();
  return <Link href={inWorkspace(href)} {...props} />;
}

/** A GET form (a search, a filter) whose action is a console path written without its workspace. */
export function ConsoleForm({ action, ...props }: Omit<ComponentProps<"form">, "action"> & { action: string }) {
  const inWorkspace = useWorkspaceHref();
  return <form action={inWorkspace(action)} {...props} />;
}
