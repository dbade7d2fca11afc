import { randomUUID } from "node:crypto";

/** `tool_3f2a…`: a new row's id, the prefix of its kind then the 32 hex digits of a random UUID. */
export const newRecordId = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "")}`;
