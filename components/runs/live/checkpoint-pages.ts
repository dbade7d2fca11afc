// The run page's checkpoint list as pages, pure so it is unit-tested: the newest page comes with every
// snapshot (it moves up as the run writes checkpoints), older pages are read on request, each just below
// the oldest one shown. Seqs may skip (retention deletes intermediate checkpoints), so whether the newest
// page still meets what is held is judged against the newest seq held (`upTo`), not inferred from seqs.

import type { CheckpointList } from "@/lib/queries/run-checkpoints";

/** The stretch read so far, down from `upTo` (the newest seq it holds), oldest first. */
export type HeldCheckpoints = CheckpointList & { upTo: number };

/**
 * The list shown: what is held below the newest page, then the newest page. When the run wrote more than
 * a page of checkpoints since, the two no longer meet (some in between were never read): the newest page
 * stands alone.
 */
export function joinCheckpointPages(newest: CheckpointList, held: HeldCheckpoints | null): CheckpointList {
  const newestFirst = newest.checkpoints[0]?.seq;
  if (!held || newestFirst === undefined || newestFirst > held.upTo) return newest;
  return {
    checkpoints: [...held.checkpoints.filter((c) => c.seq < newestFirst), ...newest.checkpoints],
    hasOlder: held.hasOlder,
  };
}

/** What is held once `page`, read before the oldest checkpoint shown, is added below the list shown. */
export function withOlderPage(shown: CheckpointList, page: CheckpointList): HeldCheckpoints {
  const oldestShown = shown.checkpoints[0]?.seq ?? Number.POSITIVE_INFINITY;
  return {
    checkpoints: [...page.checkpoints.filter((c) => c.seq < oldestShown), ...shown.checkpoints],
    hasOlder: page.hasOlder,
    upTo: shown.checkpoints.at(-1)?.seq ?? 0,
  };
}
