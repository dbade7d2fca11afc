import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../lib/runtime/errors";
import { sandboxError, type SandboxErrorCode } from "../lib/sandbox/errors";
import { errorResponse } from "../lib/sandbox/http";

// The sandbox's errors are AppErrors; its HTTP error answer is a contract of its own (lib/sandbox/README.md,
// "Wire format") that clients and tests read byte for byte: `{"error":{"code","message","fields"?}}`, a
// lowercase code and its status. Anything it does not know as its own is a generic 500 with no exception text.

async function answer(error: unknown): Promise<{ status: number; text: string }> {
  const response = errorResponse(error);
  return { status: response.status, text: await response.text() };
}

describe("the sandbox's wire error", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each<[SandboxErrorCode, number, string]>([
    ["INVALID_INPUT", 400, "invalid_input"],
    ["UNAUTHENTICATED", 401, "unauthorized"],
    ["DECLINED", 402, "declined"],
    ["FORBIDDEN", 403, "forbidden"],
    ["NOT_FOUND", 404, "not_found"],
    ["METHOD_NOT_ALLOWED", 405, "method_not_allowed"],
    ["CONFLICT", 409, "conflict"],
    ["PAYLOAD_TOO_LARGE", 413, "payload_too_large"],
    ["UNAVAILABLE", 503, "unavailable"],
    ["TIMEOUT", 504, "timeout"],
  ])("%s is answered %i `%s`", async (code, status, wire) => {
    expect(await answer(sandboxError(code, "Something's off."))).toEqual({
      status,
      text: `{"error":{"code":"${wire}","message":"Something's off."}}`,
    });
  });

  it("carries the field errors of invalid input as `fields`, after the message", async () => {
    const error = sandboxError("INVALID_INPUT", "Invalid request body: title: Required.", { title: ["Required."] });
    expect(await answer(error)).toEqual({
      status: 400,
      text: '{"error":{"code":"invalid_input","message":"Invalid request body: title: Required.","fields":{"title":["Required."]}}}',
    });
  });

  it.each([
    ["a plain exception", new Error("connection string postgres://secret@db")],
    ["an AppError INTERNAL", new AppError("INTERNAL", { message: "stack: at db.ts:12" })],
    ["an AppError the sandbox has no code for", new AppError("RATE_LIMITED", { message: "slow down" })],
  ])("%s is the generic 500, without its text", async (_what, error) => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await answer(error)).toEqual({
      status: 500,
      text: '{"error":{"code":"internal","message":"The sandbox failed unexpectedly."}}',
    });
    expect(logged).toHaveBeenCalledWith("[sandbox] unexpected error", error);
  });
});
