// Reads a text/event-stream answer message by message, as an EventSource would (comments skipped).

export type SseEvent = { event: string; id?: string; data: unknown };

export function sseReader(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const comments: string[] = [];
  async function next(): Promise<SseEvent | null> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: { event?: string; id?: string; data?: string } = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) comments.push(line);
          else if (line.startsWith("event: ")) message.event = line.slice(7);
          else if (line.startsWith("id: ")) message.id = line.slice(4);
          else if (line.startsWith("data: ")) message.data = line.slice(6);
        }
        if (message.data !== undefined)
          return {
            event: message.event ?? "message",
            ...(message.id !== undefined ? { id: message.id } : {}),
            data: JSON.parse(message.data),
          };
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return null;
      buffer += value;
    }
  }
  /** The next message of this type (others are kept in `skipped`). */
  async function nextOf(event: string, skipped: SseEvent[] = []): Promise<SseEvent> {
    for (;;) {
      const message = await next();
      if (!message) throw new Error(`the stream ended before a ${event} message`);
      if (message.event === event) return message;
      skipped.push(message);
    }
  }
  return { next, nextOf, comments, cancel: () => reader.cancel().catch(() => {}) };
}
