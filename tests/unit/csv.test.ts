import { describe, expect, it } from "vitest";
import { csvStream, escapeCsvCell, toCsvLine } from "../../lib/csv";

// CSV escaping for exports opened in spreadsheets: RFC 4180 quoting, and text a spreadsheet would run
// as a formula shown as text instead.

describe("escapeCsvCell", () => {
  it("writes plain text, numbers and empty cells as they are", () => {
    expect(escapeCsvCell("payments.refund")).toBe("payments.refund");
    expect(escapeCsvCell(90_000)).toBe("90000");
    expect(escapeCsvCell(-5)).toBe("-5"); // a number is data, not a formula
    expect(escapeCsvCell(null)).toBe("");
    expect(escapeCsvCell(undefined)).toBe("");
    expect(escapeCsvCell("")).toBe("");
  });

  it("writes dates as ISO 8601 in UTC", () => {
    expect(escapeCsvCell(new Date("2031-03-01T10:00:00.000Z"))).toBe("2031-03-01T10:00:00.000Z");
  });

  it("quotes a cell holding a comma, a quote or a line break, its quotes doubled", () => {
    expect(escapeCsvCell("refund, partial")).toBe('"refund, partial"');
    expect(escapeCsvCell('said "no"')).toBe('"said ""no"""');
    expect(escapeCsvCell("line one\nline two")).toBe('"line one\nline two"');
    expect(escapeCsvCell("carriage\r\nreturn")).toBe('"carriage\r\nreturn"');
  });

  it("prefixes text starting like a formula with a single quote (= + - @, tab, carriage return)", () => {
    expect(escapeCsvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    expect(escapeCsvCell("+1 555")).toBe("'+1 555");
    expect(escapeCsvCell("-2+3")).toBe("'-2+3");
    expect(escapeCsvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(escapeCsvCell("\tcmd")).toBe("'\tcmd");
    expect(escapeCsvCell("\r=1")).toBe(`"'\r=1"`);
    expect(escapeCsvCell("a=b")).toBe("a=b"); // only at the start
  });
});

describe("toCsvLine and csvStream", () => {
  it("joins cells with commas and ends the line with CRLF", () => {
    expect(toCsvLine(["a", "b,c", 3, null])).toBe('a,"b,c",3,\r\n');
  });

  it("streams the header, then each record, and stops reading when the download is cancelled", async () => {
    async function* records() {
      yield ["pkt_1", "=cmd"];
      yield ["pkt_2", "fine"];
    }
    const text = await new Response(csvStream(["id", "note"], records())).text();
    expect(text).toBe("id,note\r\npkt_1,'=cmd\r\npkt_2,fine\r\n");

    let isClosed = false;
    async function* endless() {
      try {
        for (let i = 0; ; i++) yield [i, "x".repeat(1000)];
      } finally {
        isClosed = true;
      }
    }
    const reader = csvStream(["n", "x"], endless()).getReader();
    await reader.read();
    await reader.cancel();
    expect(isClosed).toBe(true);
  });
});
