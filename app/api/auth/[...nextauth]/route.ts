// Auth.js's own endpoints (sign-in callbacks, sign-out, session, CSRF). Not behind bearer tokens.
import { handlers } from "@/lib/auth";

export const { GET, POST } = handlers;
