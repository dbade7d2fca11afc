// CSV for exports that people open in spreadsheets (RFC 4180: comma-separated, CRLF line ends, a cell
// in double quotes when it holds a quote, a comma or a line break, its quotes doubled).
//
// Formula injection: a spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return,
// which some strip before looking) as a formula, and exported text comes from agents and reviewers. Such
// a text cell gets a leading single quote, so it is shown as text. Numbers are written as they are: a
// negative number is data, not a formula.

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: null and undefined are empty, dates are ISO 8601 (UTC), text is neutralised and quoted as needed. */
export function escapeCsvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  const text = value instanceof Date ? value.toISOString() : String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One record, with its line end. */
export function toCsvLine(cells: readonly unknown[]): string {
  return `${cells.map(escapeCsvCell).join(",")}\r\n`;
}

/** Records are sent in chunks of about this many characters: one per row would be a chunk per packet. */
const CHUNK_CHARS = 64 * 1024;

/**
 * A byte stream of the header and then each record, pulled as the client reads: a slow download holds
 * back the reading of further records instead of buffering them, and a cancelled one stops the reading.
 */
export function csvStream(
  header: readonly string[],
  records: AsyncIterable<readonly unknown[]>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = records[Symbol.asyncIterator]();
  let pending = toCsvLine(header);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { value, done } = await iterator.next();
        if (!done) pending += toCsvLine(value);
        if (done || pending.length >= CHUNK_CHARS) {
          if (pending) controller.enqueue(encoder.encode(pending));
          pending = "";
          if (done) controller.close();
          return;
        }
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
