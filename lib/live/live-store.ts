import type { RuntimeStore } from "@/lib/runtime";
import type { LiveFeed } from "./live-feed";

// The runtime's store, telling the live feed (live-feed.ts) after each write that changes what a run page
// or the inbox shows has committed: a listener that reads then sees the write. Composed in lib/tether.ts;
// the engine knows nothing of it. A write that throws tells nobody.

export function withLiveFeed(store: RuntimeStore, feed: LiveFeed): RuntimeStore {
  // A plain then, not an async wrapper: every step's commit passes here, and each extra promise costs it.
  const after = <T>(write: Promise<T>, tell: (result: T) => void): Promise<T> =>
    write.then((result) => {
      tell(result);
      return result;
    });
  return {
    ...store,
    createRun: (run) => after(store.createRun(run), (r) => r.created && feed.runChanged(run.id)),
    commitStep: (commit) =>
      after(store.commitStep(commit), () => {
        feed.runChanged(commit.lease.runId);
        if (commit.createPacket || commit.updatePacket) feed.packetsChanged();
      }),
    transitionRun: (opts) => after(store.transitionRun(opts), () => feed.runChanged(opts.runId)),
    claimRun: (opts) => after(store.claimRun(opts), (claim) => claim && feed.runChanged(claim.run.id)),
    claimRuns: (opts) => after(store.claimRuns(opts), (claims) => claims.forEach((c) => feed.runChanged(c.run.id))),
    releaseLease: (lease) => after(store.releaseLease(lease), () => feed.runChanged(lease.runId)),
    decidePacket: (opts) =>
      after(store.decidePacket(opts), (packet) => {
        feed.runChanged(packet.runId);
        feed.packetsChanged();
      }),
    assignPacket: (opts) =>
      after(store.assignPacket(opts), (packet) => {
        feed.runChanged(packet.runId);
        feed.packetsChanged();
      }),
    deliverSignal: (opts) => after(store.deliverSignal(opts), (r) => !r.duplicate && feed.runChanged(opts.runId)),
  };
}
