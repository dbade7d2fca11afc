// The engine's public surface. Plain TypeScript: no Next.js, React or Prisma imports below here.
export * from "./canonical";
export * from "./context";
export * from "./engine";
export * from "./errors";
export * from "./expiry";
export * from "./permissions";
export * from "./recovery";
export * from "./state";
export * from "./store";
export * from "./types";
export { decidePacketSchema, type DecidePacketInput } from "./decide-packet";
export { DEFAULT_CONCURRENCY, type Worker, type WorkerOptions } from "./worker";
export type { OutcomeCheck } from "./check-outcome";
export { AgentRegistry } from "./agent-registry";
export {
  deriveAgentVersion,
  describeAgentForVersion,
  versionName,
  AGENT_VERSION_LENGTH,
  type AgentVersionExtras,
} from "./agent-version";
export { VERSION_TOOL, type VersionUpgradeArgs } from "./agent-version-gone";
export type { VersionUpgrade } from "./agent-upgrade";
