import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  checkEgress,
  egressFetch,
  EgressRefusedError,
  resolverFrom,
  type EgressPolicy,
} from "../lib/tools/registered/egress";
import { startDnsStub } from "./support/dns-stub";

// Security (docs/security.md): the egress policy of registered tools against a real DNS server. A UDP DNS server on
// 127.0.0.1 (tests/support/dns-stub.ts) answers from a table; the policy resolves through a node:dns
// Resolver pointed at it (resolverFrom), exactly as it would through any DNS server, and a local HTTP
// server counts what reaches it. tests/egress.test.ts covers the same policy with an injected resolver.

const PUBLIC_V4 = "93.184.215.14";
const PUBLIC_V6 = "2606:4700:4700::1111";

let dns: Awaited<ReturnType<typeof startDnsStub>>;
let local: { port: number; hits: string[]; server: Server };
let policy: EgressPolicy;

beforeAll(async () => {
  dns = await startDnsStub({
    "public.test": { A: [PUBLIC_V4], AAAA: [PUBLIC_V6] },
    // public when the URL is checked, loopback when the socket connects
    "rebind.test": { A: (asked) => (asked === 0 ? [PUBLIC_V4] : ["127.0.0.1"]) },
    "rebind6.test": { AAAA: (asked) => (asked === 0 ? [PUBLIC_V6] : ["::1"]) },
    "v6-loopback.test": { AAAA: ["::1"] },
    "v6-mapped.test": { AAAA: ["::ffff:127.0.0.1"] },
    "v6-link-local.test": { AAAA: ["fe80::1"] },
    "v6-unique-local.test": { AAAA: ["fd00::1"] },
    "v6-nat64.test": { AAAA: ["64:ff9b::7f00:1"] },
    "mixed.test": { A: [PUBLIC_V4, "10.0.0.7"] },
    "mixed-family.test": { A: [PUBLIC_V4], AAAA: ["::1"] },
    "internal.test": { A: ["127.0.0.1"], AAAA: ["::1"] },
    "empty.test": {},
  });
  policy = { allowedHosts: undefined, resolve: resolverFrom([dns.server], { timeoutMs: 1_000, tries: 1 }) };
  // Dual-stack when the machine has IPv6, so ::1 and ::ffff:127.0.0.1 would reach it too.
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => {
    server.once("error", () => server.listen(0, "127.0.0.1", resolve));
    server.listen({ port: 0, host: "::", ipv6Only: false }, resolve);
  });
  local = { port: (server.address() as AddressInfo).port, hits, server };
});

afterAll(async () => {
  await dns.close();
  local.server.closeAllConnections();
  await new Promise<void>((resolve) => local.server.close(() => resolve()));
});

let savedAllowed: string | undefined;
beforeEach(() => {
  savedAllowed = process.env.TETHER_TOOL_ALLOWED_HOSTS;
  delete process.env.TETHER_TOOL_ALLOWED_HOSTS;
  dns.questions.length = 0;
});
afterEach(() => {
  if (savedAllowed === undefined) delete process.env.TETHER_TOOL_ALLOWED_HOSTS;
  else process.env.TETHER_TOOL_ALLOWED_HOSTS = savedAllowed;
});

async function refusal(promise: Promise<unknown>): Promise<EgressRefusedError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EgressRefusedError);
  return error as EgressRefusedError;
}

describe("the resolver (a node:dns Resolver on the local DNS server)", () => {
  it("returns every A and AAAA record the server gives, asking it each time", async () => {
    expect(await policy.resolve!("public.test")).toEqual([
      { address: PUBLIC_V4, family: 4 },
      { address: PUBLIC_V6, family: 6 },
    ]);
    expect(await policy.resolve!("public.test")).toHaveLength(2);
    expect(
      dns
        .asked("public.test")
        .map((q) => q.type)
        .sort(),
    ).toEqual(["A", "A", "AAAA", "AAAA"]);
    await expect(checkEgress("https://public.test/x", policy)).resolves.toBeUndefined();
  });

  it("a name that does not exist, or has no address, is the resolver's error (nothing is sent)", async () => {
    await expect(policy.resolve!("nosuch.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
    await expect(policy.resolve!("empty.test")).rejects.toMatchObject({ code: "ENODATA" });
    const error = await egressFetch(policy)("https://nosuch.test/").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError); // as fetch fails on a name that does not resolve
    expect((error as TypeError).cause).toMatchObject({ code: "ENOTFOUND" });
  });
});

describe("DNS rebinding", () => {
  it("a name that answers a public address when checked and 127.0.0.1 when connecting never reaches the local server", async () => {
    const before = local.hits.length;
    const error = await refusal(
      egressFetch(policy)(`http://rebind.test:${local.port}/ping`, { method: "POST", body: "{}" }),
    );
    expect(error.message).toMatch(/egress to rebind\.test refused: it resolves to 127\.0\.0\.1, a loopback address/);
    expect(dns.asked("rebind.test").filter((q) => q.type === "A")).toHaveLength(2); // checked, then asked again at connect time
    expect(local.hits.length).toBe(before);
  });

  it("the same over AAAA: public, then ::1", async () => {
    const before = local.hits.length;
    const error = await refusal(egressFetch(policy)(`http://rebind6.test:${local.port}/ping`));
    expect(error.message).toMatch(/it resolves to ::1, a loopback address/);
    expect(dns.asked("rebind6.test").filter((q) => q.type === "AAAA")).toHaveLength(2);
    expect(local.hits.length).toBe(before);
  });
});

describe("IPv6 answers", () => {
  it.each([
    ["v6-loopback.test", /resolves to ::1, a loopback address/],
    ["v6-mapped.test", /resolves to ::ffff:127\.0\.0\.1, a loopback address in IPv4-mapped form \(127\.0\.0\.1\)/],
    ["v6-link-local.test", /resolves to fe80::1, a link-local address/],
    ["v6-unique-local.test", /resolves to fd00::1, a unique-local \(private\) address/],
    ["v6-nat64.test", /resolves to 64:ff9b::7f00:1, a loopback address in NAT64 form \(127\.0\.0\.1\)/],
  ])("%s is refused, and nothing reaches the local server", async (name, reason) => {
    expect((await refusal(checkEgress(`http://${name}:${local.port}/`, policy))).message).toMatch(reason);
    const before = local.hits.length;
    await refusal(egressFetch(policy)(`http://${name}:${local.port}/`));
    expect(local.hits.length).toBe(before);
    expect(dns.asked(name).length).toBeGreaterThan(0);
  });
});

describe("a name with a public and a private address", () => {
  it.each([
    ["mixed.test", /resolves to 10\.0\.0\.7, a private address/],
    ["mixed-family.test", /resolves to ::1, a loopback address/],
  ])("%s is refused", async (name, reason) => {
    expect((await refusal(checkEgress(`https://${name}/`, policy))).message).toMatch(reason);
  });
});

describe("numeric IPv4 forms in URLs", () => {
  it.each([
    "http://2130706433",
    "http://0x7f000001",
    "http://017700000001",
    "http://127.1",
    "http://0x7f.1",
    "http://[::ffff:7f00:1]",
  ])("%s is refused without any DNS question, and nothing reaches the local server", async (origin) => {
    const url = `${origin}:${local.port}/ping`;
    const before = local.hits.length;
    expect((await refusal(checkEgress(url, policy))).message).toMatch(/loopback address/);
    await refusal(egressFetch(policy)(url));
    expect(dns.questions).toEqual([]);
    expect(local.hits.length).toBe(before);
  });
});

describe("TETHER_TOOL_ALLOWED_HOSTS", () => {
  it("lets a listed name through (to the address the DNS server gives); unlisted, or on another port, it is refused", async () => {
    const fetch = egressFetch(policy);
    const before = local.hits.length;
    await refusal(fetch(`http://internal.test:${local.port}/a`));
    expect(local.hits.length).toBe(before);

    process.env.TETHER_TOOL_ALLOWED_HOSTS = `crm.example.com, internal.test:${local.port}`;
    dns.questions.length = 0;
    const res = await fetch(`http://internal.test:${local.port}/b`);
    expect(res.status).toBe(200);
    expect(local.hits.slice(before)).toEqual(["GET /b"]);
    expect(dns.asked("internal.test").length).toBeGreaterThan(0); // connected through the policy's resolver, not the system's

    await refusal(fetch(`http://internal.test:${local.port + 1}/c`));
    await refusal(fetch(`http://v6-loopback.test:${local.port}/d`)); // another name on the same server is not listed
    expect(local.hits.length).toBe(before + 1);
  });
});
