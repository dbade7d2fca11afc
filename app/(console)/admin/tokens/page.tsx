import type { Metadata } from "next";
import { AdminColumns } from "@/components/admin/admin-columns";
import { defineAdminPage } from "@/components/admin/admin-page";
import { AuditList } from "@/components/admin/audit-list";
import { CreateTokenForm } from "@/components/admin/tokens/create-token-form";
import { TokensTable } from "@/components/admin/tokens/tokens-table";
import { EmptyState } from "@/components/ui/empty-state";
import { TitledSection } from "@/components/ui/titled-section";
import { findAdminAudit } from "@/lib/queries/audit";
import { findTokens } from "@/lib/queries/tokens";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API tokens" };

export default defineAdminPage(
  {
    title: "API tokens",
    description: "Bearer tokens for the HTTP API, the CLI and MCP. Only a hash of each token is kept.",
  },
  async () => {
    const [tokens, audit] = await Promise.all([findTokens(), findAdminAudit(["tokens."])]);
    return (
      <AdminColumns
        aside={
          <>
            <CreateTokenForm />
            <AuditList title="Recent token activity" entries={audit} />
          </>
        }
      >
        <TitledSection headingId="tokens-list-title" title="Tokens">
          {tokens.length === 0 ? (
            <EmptyState title="No API tokens yet">Create one to call the HTTP API from a script or CI.</EmptyState>
          ) : (
            <TokensTable tokens={tokens} now={new Date()} />
          )}
        </TitledSection>
      </AdminColumns>
    );
  },
);
