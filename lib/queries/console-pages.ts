// The console's pages read through lib/queries and never hold a database client. Most queries take the
// running console's database as their default (lib/queries/packets.ts, tools.ts, …); the ones here are the
// page reads of queries that take the database first (so tests and benches pass their own): each is that
// query on the running console's database, nothing more (`Console` in a name says so).
import type { AuditFilter, AuditKey } from "@/lib/audit/filter";
import { countUsers, findDemoAccounts } from "@/lib/auth/users";
import { getDb } from "@/lib/db";
import { whyNotDecider } from "@/lib/inbox/queue-deciders";
import type { DecisionPacket } from "@/lib/runtime/types";
import { listSchedules, recentFires } from "@/lib/queries/schedules";
import { workspacesOf } from "@/lib/workspaces/members";
import { findAuditPage } from "./audit";
import { findDecisionHistory, type DecisionHistoryFilter } from "./decision-history";
import { findRunList, type RunListFilter } from "./run-list";
import { countRunsByStatus } from "./run-status-counts";

/** The admin audit page (./audit.ts findAuditPage). */
export const findConsoleAuditPage = (filter: AuditFilter, cursor: AuditKey | undefined) =>
  findAuditPage(getDb(), filter, cursor);

/** The decision history page (./decision-history.ts). */
export const findConsoleDecisionHistory = (filter: DecisionHistoryFilter) => findDecisionHistory(getDb(), filter);

/** The runs list (./run-list.ts) and its status counts (./run-status-counts.ts). */
export const findConsoleRunList = (filter: RunListFilter) => findRunList(getDb(), filter);
export const countConsoleRunsByStatus = () => countRunsByStatus(getDb());

/** The schedules page: every schedule with its last fire, and the newest fires (lib/queries/schedules.ts). */
export const findConsoleSchedules = () => listSchedules(getDb());
export const findConsoleScheduleFires = () => recentFires(getDb());

/** The workspaces the navigation offers a person (lib/workspaces/members.ts). */
export const findConsoleWorkspaces = (userId: string) => workspacesOf(getDb(), userId);

/** Why this person may not decide this packet, or null when they may (lib/inbox/queue-deciders.ts). */
export const whyNotConsoleDecider = (email: string, packet: Pick<DecisionPacket, "queue" | "kind" | "workspaceId">) =>
  whyNotDecider(getDb(), email, packet);

/** The sign-in page: the demo accounts it lists (in demo mode), and whether no account exists yet. */
export async function findSignInAccounts(opts: { withDemoAccounts: boolean }) {
  const db = getDb();
  const demoAccounts = opts.withDemoAccounts ? await findDemoAccounts(db) : [];
  const hasNoUsers = demoAccounts.length === 0 && (await countUsers(db)) === 0;
  return { demoAccounts, hasNoUsers };
}
