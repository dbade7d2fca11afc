import { presentAgents } from "@/lib/api/present";
import { version as tetherVersion } from "@/package.json";
import { A2A_PROTOCOL_VERSION } from "./protocol";

// Tether's A2A Agent Card (A2A 1.0 §4.4, §8), served at /.well-known/agent-card.json. Each agent this
// deployment runs is a skill: a message names one by its slug (the skill id) and carries the run's
// input as a DataPart. Every call needs a Tether API token as a bearer token.

export const A2A_PATH = "/api/a2a";
export const SECURITY_SCHEME = "tetherToken";

export function buildAgentCard(origin: string) {
  return {
    name: "Tether",
    description:
      "A durable runtime for AI agents with people in charge. Send a message naming an agent (a skill) with its input as a DataPart " +
      '({"input": …}); the task is the agent\'s run. When the run asks a person to decide, the task is TASK_STATE_INPUT_REQUIRED with the ' +
      'decision packet as a DataPart; a second person replies on the task with {"decision": "approve" | "edit" | "reject" | "redirect"}.',
    supportedInterfaces: [
      { url: `${origin}${A2A_PATH}`, protocolBinding: "JSONRPC", protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: { organization: "Tether", url: origin },
    version: tetherVersion,
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    securitySchemes: {
      [SECURITY_SCHEME]: {
        httpAuthSecurityScheme: {
          scheme: "Bearer",
          bearerFormat: "Tether API token (tth_…)",
          description:
            "An API token made in the console (Admin → Tokens). runs:write starts a task, runs:read reads one, packets:decide answers one that requires input.",
        },
      },
    },
    securityRequirements: [{ schemes: { [SECURITY_SCHEME]: { list: [] } } }],
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: presentAgents().map((agent) => ({
      id: agent.slug,
      name: agent.name,
      description: agent.description,
      tags: ["tether", "agent", ...agent.tools],
      ...(agent.exampleInput !== null
        ? { examples: [JSON.stringify({ agent: agent.slug, input: agent.exampleInput })] }
        : {}),
      inputModes: ["application/json"],
      outputModes: ["application/json", "text/plain"],
    })),
  };
}
