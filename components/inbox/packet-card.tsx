import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import type { DecisionPacket } from "@/lib/runtime/types";
import { PacketMeta } from "./packet-meta";


/** One pending decision packet, as a reviewer first sees it ; its link opens the packet page where it is decided. */
export function PacketCard({ packet, now }: { packet: DecisionPacket; now: Date }) {
  return (
    <article className="rounded-lg border border-zinc-200 bg-white p-4 shadow-xs">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono text-sm font-semibold text-zinc-900">{packet.tool}</span>
        {packet.kind === "UNKNOWN_OUTCOME" ? <Badge tone="orange">unknown outcome</Badge> : <Badge tone="amber">approval</Badge>}
        <Link
          href={`/inbox/${encodeURIComponent(packet.id)}`}
          aria-label={`Open packet ${packet.id}`}
          className="ml-auto rounded border border-zinc-300 px-2 py-0.5 text-xs font-medium text-blue-700 hover:bg-zinc-50"
        >
          Open packet <span className="font-mono text-zinc-400">{packet.id}</span>
        </Link>
      </div>
      <p className="mt-2 text-base text-zinc-900">{packet.content.impact}</p>
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <PacketMeta packet={packet} now={now} />
      </dl>
    </article>
  );
}
