import { Badge } from "@/components/ui/badge";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { TokenRow } from "@/lib/queries/tokens";
import { RevokeTokenButton } from "./revoke-token-button";

export function TokensTable({ tokens, now }: { tokens: TokenRow[]; now: Date }) {
  return (
    <Table>
      <caption className="sr-only">API tokens</caption>
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Scopes</Th>
          <Th>Created</Th>
          <Th>Last used</Th>
          <Th>Status</Th>
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => (
          <tr key={token.id}>
            <Td>
              <span className="font-medium">{token.name}</span>
              <span className="block font-mono text-xs text-zinc-500">{token.prefix}…</span>
              <span className="block text-xs text-zinc-600">
                {token.user ? `acts as ${token.user}` : "no owner: refused"}
              </span>
            </Td>
            <Td>
              <div className="flex flex-wrap gap-1">
                {token.scopes.map((s) => (
                  <Badge key={s}>{s}</Badge>
                ))}
              </div>
            </Td>
            <Td>
              <Timestamp value={token.createdAt} />
              <span className="block text-xs text-zinc-500">by {token.createdBy}</span>
            </Td>
            <Td>
              {token.lastUsedAt ? <Timestamp value={token.lastUsedAt} /> : <span className="text-zinc-500">never</span>}
            </Td>
            <Td>
              {token.revokedAt ? (
                <span className="flex flex-col gap-0.5">
                  <Badge tone="red">Revoked</Badge>
                  <Timestamp value={token.revokedAt} className="text-xs" />
                </span>
              ) : token.expiresAt && token.expiresAt <= now ? (
                <span className="flex flex-col gap-0.5">
                  <Badge tone="red">Expired</Badge>
                  <Timestamp value={token.expiresAt} className="text-xs" />
                </span>
              ) : (
                <span className="flex flex-col gap-0.5">
                  <Badge tone="green">Active</Badge>
                  {token.expiresAt && (
                    <span className="text-xs text-zinc-600">
                      until <Timestamp value={token.expiresAt} />
                    </span>
                  )}
                </span>
              )}
            </Td>
            <Td className="text-right">
              {!token.revokedAt && <RevokeTokenButton tokenId={token.id} name={token.name} />}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
