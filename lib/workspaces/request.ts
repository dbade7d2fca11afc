// The workspace of a console request: the one in its URL (/w/<slug>/…, which the proxy passes on in the
// WORKSPACE_HEADER), else the one the browser last opened (WORKSPACE_COOKIE), else the default. Pages and server
// actions read and write within it without saying so: it is the scope's fallback (lib/workspaces/scope.ts).
import { cookies, headers } from "next/headers";
import { cache } from "react";
import { getDb } from "@/lib/db";
import { DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";
import { findWorkspace, findWorkspaceBySlug, type WorkspaceRef } from "./members";
import { setWorkspaceFallback } from "./scope";
import { WORKSPACE_COOKIE, WORKSPACE_HEADER } from "./paths";

/** The request's workspace, read once per request; undefined outside a request (the worker's and the tickers' work). */
export const requestWorkspace = cache(async (): Promise<WorkspaceRef | undefined> => {
  let slug: string | undefined;
  try {
    slug = (await headers()).get(WORKSPACE_HEADER) ?? (await cookies()).get(WORKSPACE_COOKIE)?.value;
  } catch {
    return undefined; // not in a request
  }
  const db = getDb();
  const named = slug ? await findWorkspaceBySlug(db, slug) : null;
  if (slug && !named) return { id: `missing:${slug}`, slug, name: slug }; // no such workspace: nothing is found in it
  return (
    named ??
    (await findWorkspace(db, DEFAULT_WORKSPACE_ID)) ?? { id: DEFAULT_WORKSPACE_ID, slug: "default", name: "Default" }
  );
});

setWorkspaceFallback(async () => (await requestWorkspace())?.id);
