import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isAppError, ToolError, type ToolCallContext } from "../lib/runtime";
import { createMcpClientPool, listMcpTools, registerToolSchema, type McpServerConfig } from "../lib/tools/registered";
import {
  addressRefusal,
  checkEgress,
  egressFetch,
  EgressRefusedError,
  isAllowListed,
  literalEgressRefusal,
  type EgressPolicy,
  type ResolvedAddress,
} from "../lib/tools/registered/egress";
import { httpTool } from "../lib/tools/registered/http-tool";
import { formatCommandLine, splitCommandLines, stdioServerRefusals } from "../lib/tools/registered/mcp-commands";
import { placeholderBeforePath } from "../lib/tools/registered/template";
import { startMcpHttpServer } from "./support/mcp-http-server";

// The egress policy of registered tools (lib/tools/registered/egress.ts) and the stdio command
// allow-list (mcp-commands.ts), without a database: addresses in every form, the allow-list, the
// HTTP tool and MCP clients refused before anything is sent or spawned, and DNS rebinding.

const ENV_KEYS = ["TETHER_TOOL_ALLOWED_HOSTS", "TETHER_MCP_COMMANDS"] as const;
let savedEnv: Record<string, string | undefined> = {};
beforeEach(() => {
  savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const k of ENV_KEYS) delete process.env[k];
});
afterEach(() => {
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

const PUBLIC_V4 = "93.184.215.14";

/** A resolver that must not be asked (IP literals are never resolved). */
const noResolver: EgressPolicy["resolve"] = async (host) => {
  throw new Error(`resolver asked for ${host}`);
};
const resolvesTo =
  (...addresses: string[]): EgressPolicy["resolve"] =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

/** A local HTTP server that counts the requests that reach it. */
async function startCountingServer() {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === "/hang") return; // never answers
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ctx = (): ToolCallContext => ({
  runId: "run_e",
  step: 0,
  operationId: "op_e",
  idempotencyKey: "op_e",
  attempt: 1,
});
const base = {
  name: "http.ping",
  description: "Ping.",
  capability: "read" as const,
  semantics: "pure-read" as const,
  input: z.record(z.string(), z.unknown()),
  impact: () => "pings",
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

describe("addresses", () => {
  it.each([
    ["127.0.0.1", /loopback/],
    ["127.255.255.254", /loopback/],
    ["0.0.0.0", /unspecified/],
    ["0.1.2.3", /unspecified/],
    ["10.1.2.3", /private/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["192.168.1.1", /private/],
    ["169.254.169.254", /link-local/],
    ["100.64.0.1", /CGNAT/],
    ["100.127.255.255", /CGNAT/],
    ["192.0.0.8", /IETF/],
    ["192.0.2.1", /documentation/],
    ["198.18.0.1", /benchmarking/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /reserved or broadcast/],
    ["::1", /loopback/],
    ["::", /unspecified/],
    ["fe80::1", /link-local/],
    ["fe80::1%eth0", /link-local/],
    ["fc00::1", /unique-local/],
    ["fd12:3456::1", /unique-local/],
    ["fec0::1", /site-local/],
    ["ff02::1", /multicast/],
    ["2001:db8::1", /documentation/],
    ["::127.0.0.1", /IPv4-compatible/],
    ["::ffff:127.0.0.1", /loopback address in IPv4-mapped form \(127\.0\.0\.1\)/],
    ["::ffff:7f00:1", /loopback address in IPv4-mapped form/],
    ["0:0:0:0:0:ffff:a9fe:a9fe", /link-local address \(cloud metadata\) in IPv4-mapped form \(169\.254\.169\.254\)/],
    ["::ffff:10.0.0.1", /private address in IPv4-mapped form/],
    ["::ffff:0:10.0.0.1", /IPv4-translated/],
    ["64:ff9b::10.0.0.1", /private address in NAT64 form/],
    ["2002:7f00:1::1", /loopback address in 6to4 form/],
    ["64:ff9b:1::1", /NAT64/],
    ["2001::1", /Teredo/],
    ["100::1", /discard/],
    ["4000::1", /reserved IPv6/],
  ])("refuses %s", (address, reason) => {
    expect(addressRefusal(address)).toMatch(reason);
  });

  it.each([
    "8.8.8.8",
    PUBLIC_V4,
    "172.32.0.1",
    "100.128.0.1",
    "169.255.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ])("lets %s through", (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

describe("checkEgress", () => {
  it.each([
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0x7f000001/",
    "http://017700000001/",
    "http://127.1/",
    "http://0x7f.0.0.1./",
    "http://[::1]:8080/",
    "http://[::ffff:127.0.0.1]/",
    "http://[0:0:0:0:0:ffff:7f00:1]/",
    "http://[::]/",
    "http://0/",
    "http://0.0.0.0:3000/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://0xa9fea9fe/",
    "http://10.0.0.1/",
    "http://[fd00::1]/",
  ])("refuses the IP literal %s without resolving anything", async (url) => {
    const error = await rejection(checkEgress(url, { resolve: noResolver }));
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as Error).message).toMatch(/TETHER_TOOL_ALLOWED_HOSTS/);
  });

  it("the URL parser normalises numeric hosts before the check", () => {
    expect(
      ["http://2130706433/", "http://0x7f.1/", "http://017700000001/", "http://127.1/"].map((u) => new URL(u).hostname),
    ).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1"]);
    expect(new URL("http://[::ffff:127.0.0.1]/").hostname).toBe("[::ffff:7f00:1]");
  });

  it("refuses a name when any of its addresses is refused; a public one passes", async () => {
    await expect(checkEgress("https://internal.example/x", { resolve: resolvesTo("127.0.0.1") })).rejects.toThrow(
      /internal\.example refused: it resolves to 127\.0\.0\.1, a loopback address/,
    );
    await expect(
      checkEgress("https://mixed.example/x", { resolve: resolvesTo(PUBLIC_V4, "10.0.0.7") }),
    ).rejects.toThrow(/resolves to 10\.0\.0\.7, a private address/);
    await expect(checkEgress("https://v6.example/x", { resolve: resolvesTo("::ffff:192.168.0.1") })).rejects.toThrow(
      /private address in IPv4-mapped form/,
    );
    await expect(checkEgress("https://nothing.example/x", { resolve: resolvesTo() })).rejects.toThrow(
      /resolves to no address/,
    );
    await expect(
      checkEgress("https://crm.example/x", { resolve: resolvesTo(PUBLIC_V4, "2606:4700:4700::1111") }),
    ).resolves.toBeUndefined();
  });

  it("resolves with node:dns by default: localhost is loopback", async () => {
    await expect(checkEgress("http://localhost:3000/")).rejects.toBeInstanceOf(EgressRefusedError);
  });

  it("refuses other schemes", async () => {
    await expect(checkEgress("file:///etc/passwd")).rejects.toThrow(/only http and https/);
    await expect(checkEgress("ftp://example.com/")).rejects.toThrow(/only http and https/);
  });
});

describe("the allow-list (TETHER_TOOL_ALLOWED_HOSTS)", () => {
  const listed = (url: string, ...allowed: string[]) => isAllowListed(new URL(url), allowed);

  it("matches exact hostnames or IP literals, any port or the one given", () => {
    expect(listed("http://127.0.0.1:4000/x", "127.0.0.1")).toBe(true);
    expect(listed("http://127.0.0.1:4000/x", "127.0.0.1:4000")).toBe(true);
    expect(listed("http://127.0.0.1:4001/x", "127.0.0.1:4000")).toBe(false);
    expect(listed("http://127.0.0.1/x", "127.0.0.1:80")).toBe(true);
    expect(listed("https://127.0.0.1/x", "127.0.0.1:80")).toBe(false);
    expect(listed("https://127.0.0.1/x", "127.0.0.1:443")).toBe(true);
    expect(listed("http://[::1]:8080/", "[::1]:8080")).toBe(true);
    expect(listed("http://[::1]:8080/", "::1")).toBe(true);
    expect(listed("http://[::1]:8080/", "[::1]:8081")).toBe(false);
    expect(listed("http://LOCALHOST.:3000/", "localhost")).toBe(true);
    expect(listed("http://localhost:3000/", "127.0.0.1")).toBe(false); // a name is not its address
    expect(listed("http://127.0.0.1/", "localhost")).toBe(false);
    expect(listed("http://2130706433/", "127.0.0.1")).toBe(true); // both sides normalised
    expect(listed("http://127.0.0.1/", "0x7f.1")).toBe(true);
    expect(listed("http://crm.internal.example/", "internal.example")).toBe(false); // no suffix matching
    expect(listed("http://127.0.0.1/", "")).toBe(false);
  });

  it("is read from the environment at every check", async () => {
    await expect(checkEgress("http://127.0.0.1:4000/", { resolve: noResolver })).rejects.toBeInstanceOf(
      EgressRefusedError,
    );
    process.env.TETHER_TOOL_ALLOWED_HOSTS = "crm.internal, 127.0.0.1:4000";
    await expect(checkEgress("http://127.0.0.1:4000/", { resolve: noResolver })).resolves.toBeUndefined();
    await expect(checkEgress("http://crm.internal/x", { resolve: noResolver })).resolves.toBeUndefined();
    await expect(checkEgress("http://127.0.0.1:4001/", { resolve: noResolver })).rejects.toBeInstanceOf(
      EgressRefusedError,
    );
    delete process.env.TETHER_TOOL_ALLOWED_HOSTS;
    await expect(checkEgress("http://127.0.0.1:4000/", { resolve: noResolver })).rejects.toBeInstanceOf(
      EgressRefusedError,
    );
  });

  it("registration refuses a refused IP literal or localhost it can see without resolving", () => {
    expect(literalEgressRefusal("http://127.0.0.1:3000/x/{{id}}", [])).toMatch(
      /127\.0\.0\.1 is a loopback address: .*TETHER_TOOL_ALLOWED_HOSTS/,
    );
    expect(literalEgressRefusal("http://localhost/x", [])).toMatch(/loopback/);
    expect(literalEgressRefusal("http://[::ffff:a9fe:a9fe]/", [])).toMatch(/link-local/);
    expect(literalEgressRefusal("http://127.0.0.1:3000/x", ["127.0.0.1:3000"])).toBeNull();
    expect(literalEgressRefusal("https://crm.example.com/customers/{{id}}", [])).toBeNull(); // names are resolved at call time
  });
});

describe("placeholders before the path", () => {
  it.each([
    "http://{{host}}/x",
    "http://{{a}}.example.com/x",
    "http://crm.example.com:{{port}}/x",
    "http://user:{{p}}@crm.example.com/x",
    "http:///{{host}}/x",
    "http://crm{{x}}.example.com/",
    "{{scheme}}://crm.example.com/",
  ])("are refused in %s", (url) => {
    expect(placeholderBeforePath(url)).toBe(true);
  });
  it.each([
    "https://crm.example.com/customers/{{id}}",
    "https://crm.example.com/x?y={{y}}",
    "https://crm.example.com/",
    "https://crm.example.com/{{a}}/{{b}}?c={{c}}",
  ])("are fine after it: %s", (url) => {
    expect(placeholderBeforePath(url)).toBe(false);
  });

  it("registration gives a field error on the URL (and the lookup URL)", () => {
    const input = {
      kind: "http",
      name: "http.hostile",
      description: "d",
      capability: "read",
      semantics: "reconcilable",
      inputSchema: { type: "object", properties: { host: { type: "string" } }, required: ["host"] },
      config: {
        url: "http://{{host}}/x",
        method: "GET",
        lookupUrl: "https://{{host}}.example.com/x?op={{operationId}}",
      },
    };
    const parsed = registerToolSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    const byPath = Object.fromEntries(parsed.error!.issues.map((i) => [i.path.join("."), i.message]));
    expect(byPath["config.url"]).toMatch(
      /scheme, host and port are fixed: placeholders .* only be in its path and query/,
    );
    expect(byPath["config.lookupUrl"]).toMatch(/scheme, host and port are fixed/);
  });
});

describe("the HTTP tool", () => {
  let local: Awaited<ReturnType<typeof startCountingServer>>;
  beforeAll(async () => {
    local = await startCountingServer();
  });
  afterAll(() => local.close());

  it("aimed at a loopback server, is refused at call time and sends nothing; allowed once the host is listed", async () => {
    const tool = httpTool(base, { url: `${local.url}/ping`, method: "GET" });
    const before = local.hits.length;
    const error = await rejection(tool.run({}, ctx()));
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({
      errorClass: "rejected",
      outcome: "not_applied",
      details: { code: "EGRESS_REFUSED" },
    });
    expect((error as Error).message).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/ping: egress to 127\.0\.0\.1 refused: a loopback address/,
    );
    expect(local.hits.length).toBe(before);

    process.env.TETHER_TOOL_ALLOWED_HOSTS = `127.0.0.1:${local.port}`;
    expect(await tool.run({ q: "1" }, ctx())).toEqual({ ok: true, path: "/ping?q=1" });
    expect(local.hits.length).toBe(before + 1);

    // the same server by another name is another host
    const byName = httpTool(base, { url: `http://localhost:${local.port}/ping`, method: "GET" });
    await expect(byName.run({}, ctx())).rejects.toMatchObject({ errorClass: "rejected", outcome: "not_applied" });
    expect(local.hits.length).toBe(before + 1);
  });

  it("a name that resolves to a public address when checked and to 127.0.0.1 when connecting (DNS rebinding) never reaches the local server", async () => {
    const answers: string[] = [];
    const rebinding = async (): Promise<ResolvedAddress[]> => {
      const address = answers.length === 0 ? PUBLIC_V4 : "127.0.0.1";
      answers.push(address);
      return [{ address, family: 4 }];
    };
    // localhost: a check-then-fetch implementation would connect through the system's resolver, to this server
    const tool = httpTool(
      base,
      { url: `http://localhost:${local.port}/ping`, method: "POST" },
      { egress: { allowedHosts: [], resolve: rebinding } },
    );
    const before = local.hits.length;

    const error = await rejection(tool.run({ amount: 1 }, ctx()));

    expect(answers).toEqual([PUBLIC_V4, "127.0.0.1"]); // checked, then checked again at connect time
    expect(error).toMatchObject({ errorClass: "rejected", outcome: "not_applied" });
    expect((error as Error).message).toMatch(
      /egress to localhost refused: it resolves to 127\.0\.0\.1, a loopback address/,
    );
    expect(local.hits.length).toBe(before);
  });

  it("connects to the address the lookup checked (an allow-listed name goes through the same resolver)", async () => {
    const fetch = egressFetch({ allowedHosts: [`tool.test:${local.port}`], resolve: resolvesTo("127.0.0.1") });
    const res = await fetch(`http://tool.test:${local.port}/hello`, {
      method: "POST",
      body: JSON.stringify({ a: 1 }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, path: "/hello" });
  });

  it("a timeout aborts like fetch's", async () => {
    const fetch = egressFetch({ allowedHosts: [`127.0.0.1:${local.port}`] });
    const error = await rejection(fetch(`${local.url}/hang`, { signal: AbortSignal.timeout(100) }));
    expect((error as Error).name).toBe("TimeoutError");
  });
});

describe("MCP servers over HTTP", () => {
  let mcp: Awaited<ReturnType<typeof startMcpHttpServer>>;
  let local: Awaited<ReturnType<typeof startCountingServer>>;
  beforeAll(async () => {
    mcp = await startMcpHttpServer();
    local = await startCountingServer();
  });
  afterAll(async () => {
    await mcp.close();
    await local.close();
  });

  it("are refused at a loopback address (discovery and calls), and reached through the policy's fetch once listed", async () => {
    const server: McpServerConfig = { transport: "http", url: mcp.url };
    const discovery = await rejection(listMcpTools(server));
    expect(isAppError(discovery)).toBe(true);
    expect(discovery).toMatchObject({
      code: "INVALID_INPUT",
      fieldErrors: { url: [expect.stringMatching(/egress to 127\.0\.0\.1 refused: a loopback address/)] },
    });

    const pool = createMcpClientPool();
    try {
      await expect(pool.callTool(server, "add", { a: 1, b: 2 })).rejects.toMatchObject({
        name: "ToolError",
        errorClass: "rejected",
        outcome: "not_applied",
      });
      expect(pool.size()).toBe(0);

      process.env.TETHER_TOOL_ALLOWED_HOSTS = new URL(mcp.url).host;
      expect((await listMcpTools(server)).map((t) => t.name)).toContain("add");
      expect(await pool.callTool(server, "add", { a: 1, b: 2 })).toMatchObject({ structuredContent: { sum: 3 } });
    } finally {
      await pool.close();
    }
  });

  it("a rebinding name is refused at connect time and nothing reaches the local server", async () => {
    let asked = 0;
    const egress: EgressPolicy = {
      allowedHosts: [],
      resolve: async () => [{ address: asked++ === 0 ? PUBLIC_V4 : "127.0.0.1", family: 4 }],
    };
    const pool = createMcpClientPool({ egress });
    try {
      const before = local.hits.length;
      await expect(
        pool.callTool({ transport: "http", url: `http://localhost:${local.port}/mcp` }, "add", {}),
      ).rejects.toMatchObject({
        errorClass: "rejected",
        outcome: "not_applied",
        message: expect.stringMatching(/resolves to 127\.0\.0\.1/),
      });
      expect(asked).toBe(2);
      expect(local.hits.length).toBe(before);
    } finally {
      await pool.close();
    }
  });
});

describe("stdio MCP servers (TETHER_MCP_COMMANDS)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tether-stdio-"));
  const marker = path.join(dir, "spawned");
  // Would leave a file behind if it were ever started.
  const hostile: Extract<McpServerConfig, { transport: "stdio" }> = {
    transport: "stdio",
    command: process.execPath,
    args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`],
  };
  const notes: Extract<McpServerConfig, { transport: "stdio" }> = {
    transport: "stdio",
    command: process.execPath,
    args: ["--import", "tsx", path.resolve("tests/support/mcp-server.ts")],
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("command lines: commas between lines, spaces between words, quotes keep both", () => {
    expect(splitCommandLines("npx -y @modelcontextprotocol/server-everything, uvx mcp-server-time")).toEqual([
      ["npx", "-y", "@modelcontextprotocol/server-everything"],
      ["uvx", "mcp-server-time"],
    ]);
    expect(splitCommandLines(`"/opt/my tools/node" server.js --name 'a, b' ,  `)).toEqual([
      ["/opt/my tools/node", "server.js", "--name", "a, b"],
    ]);
    expect(splitCommandLines("")).toEqual([]);
    expect(splitCommandLines(formatCommandLine(["/opt/my tools/node", "x", "it's"]))).toEqual([
      ["/opt/my tools/node", "x", "it's"],
    ]);
  });

  it("unset: every stdio server is refused, naming the variable, and nothing is spawned", async () => {
    const error = await rejection(listMcpTools(hostile));
    expect(error).toMatchObject({
      code: "INVALID_INPUT",
      fieldErrors: { command: [expect.stringMatching(/TETHER_MCP_COMMANDS/)] },
    });
    const pool = createMcpClientPool();
    await expect(pool.callTool(hostile, "add", {})).rejects.toMatchObject({
      errorClass: "rejected",
      outcome: "not_applied",
      message: expect.stringMatching(/TETHER_MCP_COMMANDS/),
    });
    await pool.close();
    expect(existsSync(marker)).toBe(false);
  });

  it("a command line outside the list is refused at registration, discovery and call; nothing is spawned", async () => {
    process.env.TETHER_MCP_COMMANDS = `${formatCommandLine([notes.command, ...notes.args])}, npx -y @modelcontextprotocol/server-everything`;
    const error = await rejection(listMcpTools(hostile));
    expect(error).toMatchObject({
      code: "INVALID_INPUT",
      fieldErrors: { command: [expect.stringMatching(/is not an allowed MCP command.*server-everything/)] },
    });
    await expect(createMcpClientPool().callTool(hostile, "add", {})).rejects.toMatchObject({
      errorClass: "rejected",
      outcome: "not_applied",
    });

    const registration = registerToolSchema.safeParse({
      kind: "mcp",
      name: "mcp.evil.add",
      description: "d",
      capability: "read",
      semantics: "pure-read",
      config: { ...hostile, tool: "add" },
    });
    expect(registration.success).toBe(false);
    expect(registration.error!.issues.map((i) => i.path.join("."))).toContain("config.command");
    // the allowed words, but not all of them, or more
    expect(stdioServerRefusals({ command: "npx", args: ["-y"] }).map((r) => r.path.join("."))).toEqual(["command"]);
    expect(
      stdioServerRefusals({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything", "--evil"] }).map(
        (r) => r.path.join("."),
      ),
    ).toEqual(["command"]);
    expect(stdioServerRefusals({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })).toEqual(
      [],
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("an allowed command cannot be redirected by its environment or working directory", () => {
    process.env.TETHER_MCP_COMMANDS = "npx -y @modelcontextprotocol/server-everything";
    const server = { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] };
    const paths = (extra: object) => stdioServerRefusals({ ...server, ...extra }).map((r) => r.path.join("."));
    expect(
      paths({
        env: {
          NODE_OPTIONS: "--require /tmp/x.js",
          npm_config_registry: "http://evil",
          PATH: "/tmp",
          LD_PRELOAD: "x",
          API_KEY: "fine",
          NODE_ENV: "production",
        },
      }),
    ).toEqual(["env.NODE_OPTIONS", "env.npm_config_registry", "env.PATH", "env.LD_PRELOAD"]);
    expect(paths({ cwd: "/tmp" })).toEqual(["cwd"]);
  });

  it("a listed command line is started", async () => {
    process.env.TETHER_MCP_COMMANDS = formatCommandLine([notes.command, ...notes.args]);
    expect((await listMcpTools(notes)).map((t) => t.name)).toContain("add");
  });
});
