export function headerValue(value: string): string;
export function requestHeaders(message: unknown): Record<string, string> | null;
export function withRequestHeaders(inner?: typeof fetch): typeof fetch;
