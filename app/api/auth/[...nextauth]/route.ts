// Auth.js's own endpoints (sign-in callbacks, sign-out, session, CSRF). Not behind bearer tokens.
// Their POST bodies (small forms) are held to the API's size limit (lib/api/body.ts) before Auth.js
// reads them: a Content-Length over it is refused unread (the server reads no more than a declared
// length); a body sent without one is read up to the limit and handed on as a buffered copy.
import { NextRequest } from "next/server";
import { checkContentLength, readBodyBytes } from "@/lib/api/body";
import { bodyError, errorResponse } from "@/lib/api/route";
import { handlers } from "@/lib/auth";

export const { GET } = handlers;

export async function POST(request: NextRequest): Promise<Response> {
  let limited = request;
  try {
    if (request.headers.has("content-length") || !request.body) checkContentLength(request);
    else
      limited = new NextRequest(request.url, {
        method: request.method,
        headers: request.headers,
        body: await readBodyBytes(request),
        signal: request.signal,
      });
  } catch (error) {
    return errorResponse(bodyError(error));
  }
  return handlers.POST(limited);
}
