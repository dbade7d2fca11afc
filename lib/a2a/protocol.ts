import { z } from "zod";

// The A2A 1.0 shapes Tether reads and writes (a2aproject/A2A specification/a2a.proto, in its ProtoJSON
// form: camelCase fields, enums by their names). Only what the JSON-RPC methods Tether serves need:
// SendMessage, GetTask, CancelTask. Unknown fields are ignored, as the spec asks (§5.7).

export const A2A_PROTOCOL_VERSION = "1.0";

export const TASK_STATES = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
] as const;
export type TaskState = (typeof TASK_STATES)[number];

const struct = z.record(z.string(), z.unknown());

/** Part: exactly one of text, raw (base64), url, data; plus optional metadata, filename, mediaType. */
export const partSchema = z
  .object({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    metadata: struct.optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  })
  .refine(
    (part) => ["text", "raw", "url", "data"].filter((key) => part[key as keyof typeof part] !== undefined).length === 1,
    {
      message: "A part holds exactly one of text, raw, url or data.",
    },
  );
export type Part = z.infer<typeof partSchema>;

export const messageSchema = z.object({
  messageId: z.string().trim().min(1).max(200),
  contextId: z.string().trim().min(1).max(200).optional(),
  taskId: z.string().trim().min(1).max(200).optional(),
  role: z.literal("ROLE_USER", { message: "A client's message has the role ROLE_USER." }),
  parts: z.array(partSchema).min(1, "At least one part is required."),
  metadata: struct.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type Message = z.infer<typeof messageSchema>;

export const sendMessageRequestSchema = z.object({
  tenant: z.string().optional(),
  message: messageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: z.number().int().min(0).optional(),
      returnImmediately: z.boolean().optional(),
    })
    .optional(),
  metadata: struct.optional(),
});
export type SendMessageRequest = z.infer<typeof sendMessageRequestSchema>;

export const getTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: z.string().trim().min(1).max(200),
  historyLength: z.number().int().min(0).optional(),
});
export const cancelTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: z.string().trim().min(1).max(200),
  metadata: struct.optional(),
});

export type AgentMessage = { messageId: string; contextId: string; taskId: string; role: "ROLE_AGENT"; parts: Part[] };
export type Artifact = { artifactId: string; name?: string; description?: string; parts: Part[] };
export type TaskStatus = { state: TaskState; message?: AgentMessage; timestamp: string };
export type Task = {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: AgentMessage[];
  metadata?: Record<string, unknown>;
};
