// A mistake in an agent's or a tool's definition: thrown when the module is loaded, so it stops start-up
// (or the test) with a message that names the agent or tool and says what to change. Never reaches a browser.
export class SdkDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SdkDefinitionError";
  }
}

export function isZodSchema(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}
