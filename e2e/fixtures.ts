// Shared between e2e/prepare-db.ts (writes) and the specs (read): where the e2e database lives and
// which runs it holds. data/ is git-ignored.
import { readFileSync } from "node:fs";
import path from "node:path";

export const E2E_DATA_DIR = "data/e2e";
export const RUNS_FILE = `${E2E_DATA_DIR}/runs.json`;

/** The demo accounts e2e/prepare-db.ts creates (lib/auth/mode.ts), and where each one's signed-in state is saved. */
export const ROLES = ["reviewer", "operator", "admin"] as const;
export type E2eRole = (typeof ROLES)[number];
export const DEMO_PASSWORD = "tether-demo";
export const demoEmail = (role: E2eRole) => `${role}@example.com`;
export const storageStateFile = (role: E2eRole) => `${E2E_DATA_DIR}/.auth/${role}.json`;

/** An absolute SQLite URL, so the set-up script, the seeding process and `next start` open one file. */
export function e2eDatabaseUrl(root: string = process.cwd()): string {
  return `file:${path.resolve(root, E2E_DATA_DIR, "tether.db")}`;
}

export type E2eRuns = {
  /** refund of $24.00: order read, refund, email, completed */
  completed: string;
  /** refund of $240.00: waiting on its approval packet */
  waitingApproval: string;
  /** unsafe migration whose outcome is unknown */
  needsAttention: string;
  /** migration applied, waiting for deploy.finished */
  waitingEvent: string;
};

export function readRuns(root: string = process.cwd()): E2eRuns {
  return JSON.parse(readFileSync(path.resolve(root, RUNS_FILE), "utf8")) as E2eRuns;
}
