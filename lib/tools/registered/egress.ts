import { lookup as dnsLookup, Resolver } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, isIPv4, isIPv6, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { getConfig, type Config } from "@/lib/config";

// The egress policy of registered tools (HTTP tools and MCP servers over HTTP): where a request an
// admin configured, and the model filled in, may go. A host is resolved (every address) and refused
// when any address is loopback, unspecified, private, link-local (cloud metadata), CGNAT, multicast,
// reserved or documentation space, in IPv4, IPv6 or IPv4-embedded IPv6 form — unless the host, or
// host:port, is listed in TETHER_TOOL_ALLOWED_HOSTS (read at every call).
//
// The check and the connection use the same answer: `egressFetch` connects through a `lookup` that
// resolves and checks again, so a name that resolves to a public address when it is checked and to
// 127.0.0.1 when the socket connects (DNS rebinding) is refused at connect time. IP literals are
// checked before connecting (net does not look them up). Numeric host forms (2130706433, 0x7f.1,
// 017700000001, ::ffff:127.0.0.1) are normalised by the WHATWG URL parser before any check.

export const ALLOWED_HOSTS_ENV = "TETHER_TOOL_ALLOWED_HOSTS";

export type ResolvedAddress = { address: string; family: number };

export type EgressPolicy = {
  /** Hosts (or host:port) that may be reached whatever they resolve to; TETHER_TOOL_ALLOWED_HOSTS at call time unless given. */
  allowedHosts?: readonly string[];
  /** Name resolution (every address); node:dns lookup unless given. Tests inject one. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
};

/** A request the policy refused: nothing was sent. */
export class EgressRefusedError extends Error {
  readonly code = "EGRESS_REFUSED";
  constructor(
    readonly host: string,
    readonly reason: string,
    readonly address?: string,
  ) {
    super(
      address && address !== host
        ? `egress to ${host} refused: it resolves to ${address}, ${reason} (list the host in ${ALLOWED_HOSTS_ENV} to allow it)`
        : `egress to ${host} refused: ${reason} (list the host in ${ALLOWED_HOSTS_ENV} to allow it)`,
    );
    this.name = "EgressRefusedError";
  }
}

/** The egress refusal behind an error (itself or a cause), if there is one. */
export function findEgressRefusal(error: unknown): EgressRefusedError | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    if (current instanceof EgressRefusedError || (current as { code?: unknown }).code === "EGRESS_REFUSED")
      return current as EgressRefusedError;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

// ---- addresses

type Range = { bytes: number[]; bits: number; reason: string };

const range = (cidr: string, reason: string): Range => {
  const [ip, bits] = cidr.split("/");
  const bytes = parseIPv4(ip) ?? parseIPv6(ip);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, bits: Number(bits), reason };
};

// IANA's special-purpose registries, minus what is globally reachable and harmless; first match wins.
const V4_RANGES: Range[] = [
  range("0.0.0.0/8", "an unspecified (this-network) address"),
  range("10.0.0.0/8", "a private address"),
  range("100.64.0.0/10", "a shared (CGNAT) address"),
  range("127.0.0.0/8", "a loopback address"),
  range("169.254.0.0/16", "a link-local address (cloud metadata)"),
  range("172.16.0.0/12", "a private address"),
  range("192.0.0.0/24", "an IETF protocol address"),
  range("192.0.2.0/24", "a documentation address"),
  range("192.88.99.0/24", "a 6to4 relay address"),
  range("192.168.0.0/16", "a private address"),
  range("198.18.0.0/15", "a benchmarking address"),
  range("198.51.100.0/24", "a documentation address"),
  range("203.0.113.0/24", "a documentation address"),
  range("224.0.0.0/4", "a multicast address"),
  range("240.0.0.0/4", "a reserved or broadcast address"),
];

const V6_RANGES: Range[] = [
  range("::/128", "an unspecified address"),
  range("::1/128", "a loopback address"),
  range("::/96", "an IPv4-compatible address (deprecated)"),
  range("64:ff9b:1::/48", "a local-use NAT64 address"),
  range("100::/64", "a discard-only address"),
  range("2001:db8::/32", "a documentation address"),
  range("2001::/23", "an IETF protocol address (Teredo and others)"),
  range("3fff::/20", "a documentation address"),
  range("fc00::/7", "a unique-local (private) address"),
  range("fe80::/10", "a link-local address"),
  range("fec0::/10", "a site-local address"),
  range("ff00::/8", "a multicast address"),
];
const GLOBAL_UNICAST_V6 = range("2000::/3", "");

// IPv6 forms that carry an IPv4 address: judged by that address. [prefix, offset of the IPv4 bytes]
const V4_IN_V6: Array<[Range, number, string]> = [
  [range("::ffff:0:0/96", ""), 12, "IPv4-mapped"],
  [range("::ffff:0:0:0/96", ""), 12, "IPv4-translated"],
  [range("64:ff9b::/96", ""), 12, "NAT64"],
  [range("2002::/16", ""), 2, "6to4"],
];

function inRange(bytes: number[], r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  for (let bit = 0; bit < r.bits; bit += 8) {
    const take = Math.min(8, r.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8] & mask) !== (r.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

function parseIPv4(text: string): number[] | null {
  return isIPv4(text) ? text.split(".").map(Number) : null;
}

function parseIPv6(text: string): number[] | null {
  let s = text.replace(/^\[|\]$/g, "");
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(":");
  const v4 = parseIPv4(s.slice(lastColon + 1));
  if (v4)
    s = `${s.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  const [head, tail] = s.includes("::") ? s.split("::") : [s, undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  if (all.length !== 8 || all.some((g) => Number.isNaN(g))) return null;
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** Why an address may not be reached (e.g. "a loopback address"), or null for a public one. */
export function addressRefusal(address: string): string | null {
  const v4 = parseIPv4(address);
  if (v4) return V4_RANGES.find((r) => inRange(v4, r))?.reason ?? null;
  const v6 = parseIPv6(address);
  if (!v6) return "not an IP address";
  for (const [prefix, offset, form] of V4_IN_V6) {
    if (!inRange(v6, prefix)) continue;
    const embedded = v6.slice(offset, offset + 4);
    const reason = V4_RANGES.find((r) => inRange(embedded, r))?.reason;
    return reason ? `${reason} in ${form} form (${embedded.join(".")})` : null;
  }
  const reason = V6_RANGES.find((r) => inRange(v6, r))?.reason;
  if (reason) return reason;
  return inRange(v6, GLOBAL_UNICAST_V6) ? null : "a reserved IPv6 address";
}

// ---- resolution

// A family with no record answers ENODATA (the name exists) or ENOTFOUND (it does not): not an error
// while the other family has addresses. Any other failure (timeout, SERVFAIL, refused) is thrown.
const NO_RECORDS = new Set(["ENODATA", "ENOTFOUND"]);

/**
 * A resolver for EgressPolicy.resolve that asks the given DNS servers ("127.0.0.1:5353", "[::1]:53")
 * for A and AAAA records directly, without the system's resolver or hosts file: for a deployment
 * that must use its own DNS, and for tests against a local DNS server. Each call asks again (no
 * cache beyond the records' TTL), so the check and the connection each get a fresh answer.
 */
export function resolverFrom(
  servers: readonly string[],
  options: { timeoutMs?: number; tries?: number } = {},
): (hostname: string) => Promise<ResolvedAddress[]> {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 2_000, tries: options.tries ?? 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const failures = [v4, v6].flatMap((r) => (r.status === "rejected" ? [r.reason as NodeJS.ErrnoException] : []));
    const hard = failures.find((e) => !NO_RECORDS.has(e.code ?? ""));
    if (hard) throw hard;
    if (failures.length === 2) throw failures[0];
    return [
      ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
  };
}

// ---- the allow-list

type AllowedHost = { hostname: string; port: string | null };

/** TETHER_TOOL_ALLOWED_HOSTS: comma-separated hostnames or IP literals, each optionally with :port ([v6]:port). */
export function allowedHostsFromEnv(config: Config = getConfig()): string[] {
  return config.tools.allowedHosts;
}

function parseAllowedHost(entry: string): AllowedHost | null {
  const text = entry.trim().toLowerCase();
  let host: string;
  let port: string | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) [host, port] = [`[${bracketed[1]}]`, bracketed[2] ?? null];
  else if (isIPv6(text)) host = `[${text}]`;
  else {
    const m = /^([^:/\s]+)(?::(\d+))?$/.exec(text);
    if (!m) return null;
    [host, port] = [m[1], m[2] ?? null];
  }
  const hostname = normaliseHostname(host);
  return hostname ? { hostname, port } : null;
}

/** A hostname as the URL parser has it (numeric IPv4 forms dotted, IPv6 compressed in brackets), without a trailing dot. */
function normaliseHostname(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname.replace(/\.$/, "");
  } catch {
    return null;
  }
}

const effectivePort = (url: URL) => url.port || (url.protocol === "https:" ? "443" : "80");

export function isAllowListed(url: URL, allowed: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase().replace(/\.$/, "");
  const port = effectivePort(url);
  return allowed.some((entry) => {
    const a = parseAllowedHost(entry);
    return !!a && a.hostname === hostname && (a.port === null || a.port === port);
  });
}

// ---- checks

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, "");
const allowedOf = (policy: EgressPolicy) => policy.allowedHosts ?? allowedHostsFromEnv();
const resolverOf = (policy: EgressPolicy) =>
  policy.resolve ?? ((hostname: string) => dnsLookup(hostname, { all: true, verbatim: true }));

function parseTarget(target: string | URL): URL {
  const url = new URL(target);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new EgressRefusedError(url.protocol, "only http and https may be used");
  return url;
}

/** Throws EgressRefusedError when any address of the host is refused (or the IP literal is). */
function checkAddresses(host: string, addresses: readonly ResolvedAddress[]): void {
  if (addresses.length === 0) throw new EgressRefusedError(host, "it resolves to no address");
  for (const { address } of addresses) {
    const reason = addressRefusal(address);
    if (reason) throw new EgressRefusedError(host, reason, address);
  }
}

/**
 * Checks a URL against the policy: allow-listed, or every address of its host public. Throws
 * EgressRefusedError, or the resolver's error when the name does not resolve.
 */
export async function checkEgress(target: string | URL, policy: EgressPolicy = {}): Promise<void> {
  const url = parseTarget(target);
  if (isAllowListed(url, allowedOf(policy))) return;
  const host = bare(url.hostname);
  if (isIP(host)) return checkAddresses(host, [{ address: host, family: isIP(host) }]);
  checkAddresses(host, await resolverOf(policy)(host));
}

/**
 * What can be told without resolving a name: an IP literal (or localhost) that is refused, as a
 * sentence for a registration form; null when the host is a name, public or allow-listed.
 */
export function literalEgressRefusal(
  target: string,
  allowed: readonly string[] = allowedHostsFromEnv(),
): string | null {
  let url: URL;
  try {
    url = new URL(target.replace(/\{\{[^}]*\}\}/g, "x"));
  } catch {
    return null; // the URL check reports it
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (isAllowListed(url, allowed)) return null;
  const host = bare(url.hostname).replace(/\.$/, "");
  const reason = isIP(host)
    ? addressRefusal(host)
    : host === "localhost" || host.endsWith(".localhost")
      ? "a loopback address"
      : null;
  return reason
    ? `${host} is ${reason}: registered tools may not reach it unless ${ALLOWED_HOSTS_ENV} lists it.`
    : null;
}

/** A socket lookup that resolves with the policy's resolver and refuses what the policy refuses. */
function guardedLookup(policy: EgressPolicy, check: boolean): LookupFunction {
  const resolve = resolverOf(policy);
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((found) => {
        const addresses =
          options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (check) checkAddresses(hostname, addresses);
        if (addresses.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" });
        // With `all` (net's autoSelectFamily), the callback takes the whole list.
        if (options.all) (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, "", 0));
  };
}

// ---- the fetch

export type EgressFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A fetch for registered tools: checks the URL, then connects only to an address that passed the
 * check (the socket's own lookup checks again). Redirects are never followed: a 3xx comes back as
 * it is (callers that follow one call this fetch again, so the target is checked too). Errors look
 * like fetch's (TypeError "fetch failed" with the cause), except EgressRefusedError, thrown as is.
 */
export function egressFetch(policy: EgressPolicy = {}): EgressFetch {
  return async (input, init = {}) => {
    const url = parseTarget(input);
    const allowListed = isAllowListed(url, allowedOf(policy));
    if (!allowListed) {
      try {
        await checkEgress(url, policy);
      } catch (error) {
        if (findEgressRefusal(error)) throw error;
        throw new TypeError("fetch failed", { cause: error });
      }
    }
    return send(url, init, guardedLookup(policy, !allowListed));
  };
}

async function send(url: URL, init: RequestInit, lookup: LookupFunction): Promise<Response> {
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  let body: Buffer | undefined;
  if (init.body !== undefined && init.body !== null) {
    const normalised = new Response(init.body); // strings, bytes, forms and streams, as fetch takes them
    const contentType = normalised.headers.get("content-type");
    if (contentType && !headers.has("content-type")) headers.set("content-type", contentType);
    body = Buffer.from(await normalised.arrayBuffer());
    headers.set("content-length", String(body.length));
  }
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();

  return new Promise<Response>((resolve, reject) => {
    let incoming: http.IncomingMessage | undefined;
    const client = url.protocol === "https:" ? https : http;
    // A fresh connection per request (agent: false): no pooled socket made outside this lookup is reused.
    const req = client.request(url, { method, headers: Object.fromEntries(headers), lookup, agent: false }, (res) => {
      incoming = res;
      const status = res.statusCode ?? 0;
      const responseHeaders = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
        try {
          responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        } catch {
          // a header fetch would not accept either: left out
        }
      }
      const nullBody = method === "HEAD" || NULL_BODY_STATUSES.has(status);
      res.on("error", () => {}); // a body cut off errors the stream below; nothing else listens
      if (nullBody) res.resume();
      res.once("close", () => signal?.removeEventListener("abort", onAbort));
      try {
        const stream = nullBody ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        const response = new Response(stream, { status, statusText: res.statusMessage, headers: responseHeaders });
        Object.defineProperty(response, "url", { value: url.href });
        resolve(response);
      } catch (error) {
        res.destroy();
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    const onAbort = () => {
      const reason = signal?.reason as Error;
      incoming?.destroy(reason); // a body being read fails with the reason, as fetch's does
      req.destroy(reason);
      reject(reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(signal.reason);
      reject(findEgressRefusal(error) ?? new TypeError("fetch failed", { cause: error }));
    });
    req.end(body);
  });
}
