import { Badge } from "@/components/ui/badge";
import { BadgeList } from "@/components/ui/badge-list";
import { DataTable, type Column } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { TokenRow } from "@/lib/queries/tokens";
import { RevokeTokenButton } from "./revoke-token-button";

/** Revoked, expired (as of `now`) or active, with the moment that applies. */
function TokenStatus({ token, now }: { token: TokenRow; now: Date }) {
  if (token.revokedAt)
    return (
      <span className="flex flex-col gap-0.5">
        <Badge tone="red">Revoked</Badge>
        <Timestamp value={token.revokedAt} className="text-xs" />
      </span>
    );
  if (token.expiresAt && token.expiresAt <= now)
    return (
      <span className="flex flex-col gap-0.5">
        <Badge tone="red">Expired</Badge>
        <Timestamp value={token.expiresAt} className="text-xs" />
      </span>
    );
  return (
    <span className="flex flex-col gap-0.5">
      <Badge tone="green">Active</Badge>
      {token.expiresAt && (
        <span className="text-xs text-zinc-600">
          until <Timestamp value={token.expiresAt} />
        </span>
      )}
    </span>
  );
}

export function TokensTable({ tokens, now }: { tokens: TokenRow[]; now: Date }) {
  const columns: Column<TokenRow>[] = [
    {
      header: "Name",
      cell: (token) => (
        <>
          <span className="font-medium">{token.name}</span>
          <span className="block font-mono text-xs text-zinc-500">{token.prefix}…</span>
          <span className="block text-xs text-zinc-600">
            {token.user ? `acts as ${token.user}` : "no owner: refused"}
          </span>
        </>
      ),
    },
    {
      header: "Scopes",
      cell: (token) => <BadgeList labels={token.scopes} />,
    },
    {
      header: "Created",
      cell: (token) => (
        <>
          <Timestamp value={token.createdAt} />
          <span className="block text-xs text-zinc-500">by {token.createdBy}</span>
        </>
      ),
    },
    {
      header: "Last used",
      cell: (token) =>
        token.lastUsedAt ? <Timestamp value={token.lastUsedAt} /> : <span className="text-zinc-500">never</span>,
    },
    { header: "Status", cell: (token) => <TokenStatus token={token} now={now} /> },
    {
      header: "Actions",
      isHeaderHidden: true,
      className: "text-right",
      cell: (token) => !token.revokedAt && <RevokeTokenButton tokenId={token.id} name={token.name} />,
    },
  ];
  return <DataTable columns={columns} rows={tokens} rowKey={(token) => token.id} caption="API tokens" />;
}
