import { describe, expect, it } from "vitest";
import { hrefInWorkspace, isWorkspacePage, splitWorkspacePath } from "../lib/workspaces/paths";

describe("workspace paths", () => {
  it("splits /w/<slug>/… into the slug and the page, and nothing else", () => {
    expect(splitWorkspacePath("/w/acme/inbox")).toEqual({ slug: "acme", rest: "/inbox" });
    expect(splitWorkspacePath("/w/acme")).toEqual({ slug: "acme", rest: "/" });
    expect(splitWorkspacePath("/w/Acme/inbox")).toBeNull();
    expect(splitWorkspacePath("/runs")).toBeNull();
  });

  it("leads a console link written without its workspace into the page's one, query and fragment kept", () => {
    expect(hrefInWorkspace("acme", "/runs/run_1")).toBe("/w/acme/runs/run_1");
    expect(hrefInWorkspace("acme", "/runs?agent=a&version=v")).toBe("/w/acme/runs?agent=a&version=v");
    expect(hrefInWorkspace("acme", "/evals/compare?a=1#top")).toBe("/w/acme/evals/compare?a=1#top");
    expect(hrefInWorkspace("acme", "/inbox")).toBe("/w/acme/inbox");
  });

  it("leaves every other href alone: already in a workspace, the API, sign-in, relative, other sites", () => {
    for (const href of [
      "/w/other/runs",
      "/api/console/audit?format=csv",
      "/signin",
      "?status=COMPLETED",
      "#t",
      "https://example.com/runs",
      "/runsx",
    ]) {
      expect(hrefInWorkspace("acme", href)).toBe(href);
    }
    expect(isWorkspacePage("/runsx")).toBe(false);
  });
});
