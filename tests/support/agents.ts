import { z } from "zod";
import { latestFact, type AgentDefinition, type Decision, type PolicyInput, type RunState } from "../../lib/runtime";

// Deterministic scripted agents for tests. Each takes its slug as a parameter, so every test can use
// its own agent (and so its own permissions) in a shared database.

const last = (state: RunState) => state.observations.at(-1);

/** Replays a fixed list of decisions, one per step; then completes. */
export function scriptedAgent(
  slug: string,
  tools: string[],
  decisions: Array<Decision | ((input: PolicyInput) => Decision)>,
): AgentDefinition {
  return {
    slug,
    version: "1",
    name: slug,
    description: "scripted test agent",
    instructions: "Follow the script.",
    input: z.unknown(),
    tools,
    policy: {
      async decide(input) {
        const next = decisions[input.state.step];
        const decision =
          typeof next === "function"
            ? next(input)
            : (next ?? { kind: "complete", output: { steps: input.state.step } });
        return { decision, usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.0001 } };
      },
    },
  };
}

/** Reads the order, refunds it (evidence: the order), emails the customer, completes. */
export function refundAgent(slug: string): AgentDefinition<{ orderId: string; email: string }> {
  return {
    slug,
    version: "1",
    name: "Refund (test)",
    description: "refunds an order and tells the customer",
    instructions: "Refund the order in full, then email the customer.",
    input: z.object({ orderId: z.string(), email: z.string().email() }),
    tools: ["orders.get", "payments.refund", "mail.send"],
    policy: {
      async decide({ state }) {
        const input = state.input as { orderId: string; email: string };
        const order = latestFact(state, "order")?.value as { amountCents: number } | undefined;
        const refund = latestFact(state, "refund");
        const obs = last(state);
        if (!order)
          return {
            decision: {
              kind: "call",
              tool: "orders.get",
              args: { orderId: input.orderId },
              resultKey: "order",
              evidence: [],
            },
          };
        if (!refund) {
          if (obs && ["rejected", "expired", "denied"].includes(obs.kind))
            return { decision: { kind: "complete", output: { refunded: false, why: obs.message } } };
          if (obs?.kind === "tool_error" && obs.tool === "payments.refund")
            return { decision: { kind: "fail", reason: obs.message } };
          return {
            decision: {
              kind: "call",
              tool: "payments.refund",
              args: { orderId: input.orderId, amountCents: order.amountCents },
              resultKey: "refund",
              evidence: ["order"],
              reasoning: "The order qualifies for a full refund.",
              uncertainty: "low",
            },
          };
        }
        if (!latestFact(state, "mail")) {
          if (obs?.kind === "tool_error" && obs.tool === "mail.send")
            return { decision: { kind: "fail", reason: obs.message } };
          return {
            decision: {
              kind: "call",
              tool: "mail.send",
              args: { to: input.email, subject: `Refund for ${input.orderId}` },
              resultKey: "mail",
              evidence: ["refund"],
            },
          };
        }
        return {
          decision: { kind: "complete", output: { refund: refund.value, mail: latestFact(state, "mail")!.value } },
        };
      },
    },
  };
}

/** Runs an (unsafe) migration, waits for the deploy callback, completes. */
export function deployAgent(slug: string): AgentDefinition<{ migration: string }> {
  return {
    slug,
    version: "1",
    name: "Deploy (test)",
    description: "runs a migration and waits for its callback",
    instructions: "Run the migration, then wait for deploy.finished.",
    input: z.object({ migration: z.string() }),
    tools: ["deploy.migrate"],
    policy: {
      async decide({ state }) {
        const input = state.input as { migration: string };
        const obs = last(state);
        if (!latestFact(state, "deploy")) {
          if (obs && obs.kind !== "tool_result" && obs.tool === "deploy.migrate")
            return { decision: { kind: "complete", output: { deployed: false, why: obs.message } } };
          return {
            decision: {
              kind: "call",
              tool: "deploy.migrate",
              args: { migration: input.migration },
              resultKey: "deploy",
              evidence: [],
            },
          };
        }
        if (!latestFact(state, "signal:deploy.finished")) {
          if (obs?.kind === "timeout") return { decision: { kind: "fail", reason: "the deploy never reported back" } };
          return { decision: { kind: "wait_event", eventType: "deploy.finished", timeoutMs: 3_600_000 } };
        }
        return {
          decision: {
            kind: "complete",
            output: { deployed: true, callback: latestFact(state, "signal:deploy.finished")!.value },
          },
        };
      },
    },
  };
}

/** Refunds $1.00 on its order at every step and never stops by itself: a budget is what parks it. */
export function refundLoopAgent(
  slug: string,
  budget?: AgentDefinition["budget"],
): AgentDefinition<{ orderId: string }> {
  return {
    slug,
    version: "1",
    name: "Refund loop (test)",
    description: "refunds in a loop until its budget parks it",
    instructions: "Refund $1.00, again and again.",
    input: z.object({ orderId: z.string() }),
    tools: ["payments.refund"],
    ...(budget ? { budget } : {}),
    policy: {
      async decide({ state }) {
        const { orderId } = state.input as { orderId: string };
        return {
          decision: {
            kind: "call",
            tool: "payments.refund",
            args: { orderId, amountCents: 100 },
            resultKey: "refund",
            evidence: [],
          },
          usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.01 },
        };
      },
    },
  };
}

/** Starts one run of `child` with its own input, waits for it, completes with the child's outcome (children.ts). */
export function spawnParentAgent(slug: string, child: string): AgentDefinition {
  return spawning(
    [child],
    scriptedAgent(
      slug,
      [],
      [
        ({ state }) => ({
          kind: "spawn",
          agent: child,
          input: { from: (state.input as { tag?: string } | null)?.tag ?? "parent" },
        }),
        ({ state }) => ({
          kind: "complete",
          output: state.facts.find((f) => f.kind === "receipt" && f.key.startsWith("child:"))?.value ?? null,
        }),
      ],
    ),
  );
}

/** The agent, allowed to start runs of these agents (AgentDefinition.spawns). */
export function spawning<T extends AgentDefinition>(spawns: string[], agent: T): T {
  return { ...agent, spawns };
}

/** Completes at once with what it was given: a child run to spawn. */
export function echoAgent(slug: string): AgentDefinition {
  return scriptedAgent(slug, [], [({ state }) => ({ kind: "complete", output: { echoed: state.input } })]);
}
