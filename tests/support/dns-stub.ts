import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";

// A DNS server for tests: UDP on 127.0.0.1, answering A and AAAA questions from a table the test
// controls (TTL 0, so nothing is cached), and recording every question it is asked. A name not in
// the table is NXDOMAIN; a name without records of the asked type answers NOERROR with none (NODATA).
// An answer may be a function of how many times that name and type were asked before (rebinding).

export type DnsAnswer = readonly string[] | ((asked: number) => readonly string[]);
export type DnsTable = Record<string, { A?: DnsAnswer; AAAA?: DnsAnswer }>;
export type DnsQuestion = { name: string; type: string };

const TYPES: Record<number, "A" | "AAAA"> = { 1: "A", 28: "AAAA" };
const CLASS_IN = 1;

export async function startDnsStub(table: DnsTable) {
  const questions: DnsQuestion[] = [];
  const socket = createSocket("udp4");
  socket.on("message", (query, from) => {
    const answer = respond(query, table, questions);
    if (answer) socket.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    questions,
    /** The questions asked about one name (any type). */
    asked: (name: string) => questions.filter((q) => q.name === name.toLowerCase()),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function respond(query: Buffer, table: DnsTable, questions: DnsQuestion[]): Buffer | null {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return null; // one question, as resolvers send
  let offset = 12;
  const labels: string[] = [];
  while (offset < query.length && query[offset] !== 0) {
    const length = query[offset];
    if (length > 63) return null; // no compression in a question
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString("latin1"));
    offset += 1 + length;
  }
  const end = offset + 5; // the root label, QTYPE, QCLASS
  if (end > query.length) return null;
  const qtype = query.readUInt16BE(offset + 1);
  const name = labels.join(".").toLowerCase();
  const type = TYPES[qtype] ?? String(qtype);
  const before = questions.filter((q) => q.name === name && q.type === type).length;
  questions.push({ name, type });

  const entry = table[name];
  const records = type === "A" || type === "AAAA" ? entry?.[type] : undefined;
  const addresses = typeof records === "function" ? records(before) : (records ?? []);
  const answers = addresses.map((address) => record(qtype, type === "A" ? ipv4Bytes(address) : ipv6Bytes(address)));

  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  const recursionDesired = query[2] & 0x01;
  header.writeUInt16BE(0x8080 | (recursionDesired << 8) | (entry ? 0 : 3), 2); // QR, RA; NOERROR or NXDOMAIN
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

function record(qtype: number, data: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  head.writeUInt16BE(qtype, 2);
  head.writeUInt16BE(CLASS_IN, 4);
  head.writeUInt32BE(0, 6); // TTL 0: never cached
  head.writeUInt16BE(data.length, 10);
  return Buffer.concat([head, data]);
}

function ipv4Bytes(address: string): Buffer {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255)))
    throw new Error(`not an IPv4 address: ${address}`);
  return Buffer.from(parts);
}

function ipv6Bytes(address: string): Buffer {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  if (groups.length !== 8) throw new Error(`not an IPv6 address: ${address}`);
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
