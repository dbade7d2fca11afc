import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApiScope } from "@/lib/api/scopes";
import type { ApiPrincipal } from "@/lib/api/tokens";
import { AppError, isAppError } from "@/lib/runtime/errors";

// Tether's errors in MCP's shapes. A tool's failure is a tool result with isError (the model reads it),
// carrying the HTTP API's error body ({ error: { code, message, fieldErrors? } }); a failure of any
// other request is a JSON-RPC error whose data is that body's error. A raw exception message never
// leaves the server, as in the HTTP API.

export const forbidden = (principal: ApiPrincipal, scope: ApiScope) =>
  new AppError("FORBIDDEN", {
    message: `token ${principal.name} lacks ${scope}`,
    userMessage: `This token does not have the "${scope}" scope.`,
  });

function errorBody(error: unknown) {
  if (isAppError(error))
    return {
      code: error.code,
      message: error.userMessage,
      ...(error.fieldErrors ? { fieldErrors: error.fieldErrors } : {}),
    };
  if (error instanceof McpError) return { code: "INVALID_INPUT", message: error.message };
  console.error("[tether] unexpected MCP error", error);
  return { code: "INTERNAL", message: "Something went wrong on the server." };
}

export function toolError(error: unknown): CallToolResult {
  const body = errorBody(error);
  return {
    content: [
      {
        type: "text",
        text: `${body.code}: ${body.message}${"fieldErrors" in body ? ` ${JSON.stringify(body.fieldErrors)}` : ""}`,
      },
    ],
    structuredContent: { error: body },
    isError: true,
  };
}

const JSON_RPC_CODE: Partial<Record<AppError["code"], number>> = {
  INVALID_INPUT: ErrorCode.InvalidParams,
  NOT_FOUND: ErrorCode.InvalidParams,
  FORBIDDEN: ErrorCode.InvalidRequest,
};

export function toMcpError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const body = errorBody(error);
  const code = isAppError(error) ? (JSON_RPC_CODE[error.code] ?? ErrorCode.InternalError) : ErrorCode.InternalError;
  return new McpError(code, body.message, body);
}
