import { errorResponse } from "@/lib/api/route";

// The protocol's error shape is FastAPI's `{detail}` (what the LangGraph SDK shows in its HTTPError);
// Tether's own `{error: {code, message, fieldErrors?}}` stays beside it, with the same HTTP status
// (ERROR_HTTP_STATUS: 400 bad input, 401, 403, 404, 409 already decided or nothing to resume…).

export async function langGraphErrorResponse(error: unknown): Promise<Response> {
  const response = errorResponse(error);
  const body = (await response.json()) as { error: { message: string } };
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json({ detail: body.error.message, ...body }, { status: response.status, headers });
}
