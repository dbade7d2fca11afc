import type { Metadata } from "next";
import { defineAdminPage } from "@/components/admin/admin-page";
import { RegisterHttpToolForm } from "@/components/admin/tools/register-http-tool-form";
import { ToolsTable } from "@/components/admin/tools/tools-table";
import { EmptyState } from "@/components/ui/empty-state";
import { findToolRegistry } from "@/lib/queries/tools";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Tools" };

export default defineAdminPage(
  {
    title: "Tools",
    description:
      "Every tool an agent can be granted: built-in, HTTP and MCP. A tool declares what it may change and how a repeat is made safe. MCP tools are registered through the API (POST /api/tools).",
  },
  async () => {
    const tools = await findToolRegistry();
    return (
      <div className="space-y-6">
        {tools.length === 0 ? (
          <EmptyState title="No tools">Register an HTTP tool below.</EmptyState>
        ) : (
          <ToolsTable tools={tools} />
        )}
        <div className="max-w-2xl">
          <RegisterHttpToolForm />
        </div>
      </div>
    );
  },
);
