import type { z } from "zod";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";

// The one way a command or domain function refuses input that its schema does not accept: INVALID_INPUT, with the
// schema's messages by field for the form (or the API client) to show next to each.

/** The input as `schema` parses it, or INVALID_INPUT: "invalid <what>", shown as "The <what> is invalid." unless told. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  userMessage = `The ${what} is invalid.`,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new AppError("INVALID_INPUT", {
      message: `invalid ${what}`,
      userMessage,
      fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
    });
  return parsed.data;
}
