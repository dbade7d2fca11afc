// Which stdio MCP servers this server may start. A request (registration or discovery) names a command
// and its arguments; they must be, word for word, one of the command lines in TETHER_MCP_COMMANDS (read
// at every use). Unset, no stdio server is started at all. The environment a registration adds cannot
// change what that command line runs (no PATH, loader, interpreter or package-manager variables), and
// the working directory is the server's own.
//
//   TETHER_MCP_COMMANDS="npx -y @modelcontextprotocol/server-everything, uvx mcp-server-time"
//
// Command lines are separated by commas; words by spaces; "double" or 'single' quotes keep spaces and
// commas inside one word.

import { getConfig, type Config } from "@/lib/config";

export const MCP_COMMANDS_ENV = "TETHER_MCP_COMMANDS";

export type StdioServerRequest = {
  command: string;
  args?: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
};
export type StdioRefusal = { path: string[]; message: string };

/** The command lines of TETHER_MCP_COMMANDS, each as its words. */
export function allowedMcpCommands(config: Config = getConfig()): string[][] {
  return splitCommandLines(config.tools.mcpCommands);
}

export function splitCommandLines(text: string): string[][] {
  const lines: string[][] = [];
  let words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endLine = () => {
    endWord();
    if (words.length) lines.push(words);
    words = [];
  };
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= "";
    } else if (ch === ",") endLine();
    else if (/\s/.test(ch)) endWord();
    else word = (word ?? "") + ch;
  }
  endLine();
  return lines;
}

/** A command line as text, quoting words with spaces, commas or quotes. */
export function formatCommandLine(words: readonly string[]): string {
  return words.map((w) => (w === "" || /[\s,'"]/.test(w) ? (w.includes('"') ? `'${w}'` : `"${w}"`) : w)).join(" ");
}

// Variables that change which program runs or what it loads: PATH and loaders, interpreters' options
// and module paths, package managers' registries and configuration, shells' start-up files, proxies.
const FORBIDDEN_ENV = [
  /^PATH$/i,
  /^HOME$/i,
  /^USERPROFILE$/i,
  /^TMPDIR$/i,
  /^XDG_/i,
  /^IFS$/i,
  /^ENV$/i,
  /^BASH_ENV$/i,
  /^SHELL(OPTS)?$/i,
  /^BASHOPTS$/i,
  /^PS4$/i,
  /^LD_/i,
  /^DYLD_/i,
  /^GCONV_PATH$/i,
  /^NODE_(?!ENV$)/i,
  /^NPM_CONFIG_/i,
  /^YARN_/i,
  /^PNPM_/i,
  /^COREPACK_/i,
  /^BUN_/i,
  /^DENO_/i,
  /^PYTHON/i,
  /^PIP_/i,
  /^UV_/i,
  /^VIRTUAL_ENV$/i,
  /^CONDA/i,
  /^PERL5?(LIB|OPT)$/i,
  /^RUBY(OPT|LIB)$/i,
  /^GEM_/i,
  /^BUNDLE_/i,
  /^JAVA_TOOL_OPTIONS$/i,
  /^_?JAVA_OPTIONS$/i,
  /^JDK_JAVA_OPTIONS$/i,
  /^CLASSPATH$/i,
  /^DOTNET_/i,
  /^GIT_/i,
  /^(HTTPS?|ALL|NO)_PROXY$/i,
  /^SSL_CERT_/i,
];

/** Why a stdio server may not be started (one entry per field), or [] when it may. */
export function stdioServerRefusals(
  server: StdioServerRequest,
  allowed: readonly string[][] = allowedMcpCommands(),
): StdioRefusal[] {
  const refusals: StdioRefusal[] = [];
  const words = [server.command, ...(server.args ?? [])];
  if (allowed.length === 0) {
    refusals.push({
      path: ["command"],
      message: `Stdio MCP servers are off: this server starts only the command lines listed in ${MCP_COMMANDS_ENV}, and it is not set.`,
    });
  } else if (!allowed.some((line) => line.length === words.length && line.every((w, i) => w === words[i]))) {
    refusals.push({
      path: ["command"],
      message: `${formatCommandLine(words)} is not an allowed MCP command. Give the command and its arguments exactly as one of the lines in ${MCP_COMMANDS_ENV}: ${allowed.map(formatCommandLine).join("; ")}.`,
    });
  }
  for (const name of Object.keys(server.env ?? {})) {
    if (FORBIDDEN_ENV.some((re) => re.test(name)))
      refusals.push({
        path: ["env", name],
        message: `${name} cannot be set for an MCP server: it changes which program runs or what it loads.`,
      });
  }
  if (server.cwd !== undefined)
    refusals.push({
      path: ["cwd"],
      message: "An MCP server runs in this server's working directory; a cwd cannot be given.",
    });
  return refusals;
}

/** A stdio server that was not started: refused by TETHER_MCP_COMMANDS. */
export class McpCommandRefusedError extends Error {
  readonly code = "MCP_COMMAND_REFUSED";
  constructor(readonly refusals: StdioRefusal[]) {
    super(refusals.map((r) => r.message).join(" "));
    this.name = "McpCommandRefusedError";
  }
}

/** Throws McpCommandRefusedError unless the stdio server may be started. */
export function assertStdioServerAllowed(server: StdioServerRequest): void {
  const refusals = stdioServerRefusals(server);
  if (refusals.length) throw new McpCommandRefusedError(refusals);
}
