// Which outside systems may call back through `POST /api/webhooks/:source`, and with which secrets.
//
//   TETHER_WEBHOOK_SECRETS="github=whsec_…,deploys=whsec_…"
//     Entries separated by commas (or whitespace), each `<source>=whsec_<base64>`. A source name is 1–40
//     of a-z, 0-9, "-" and "_", starting with a letter or digit; it is the last segment of the URL. The
//     secret is a Standard Webhooks symmetric secret: "whsec_" and the base64 of 24 to 64 random bytes.
//     A source may be named more than once while its secret is rotated: a signature by any of its
//     secrets is accepted. Unset or empty: no source exists (every webhook is a 404).
//   TETHER_WEBHOOK_SIGNAL_TYPES="deploys=deploy.finished|deploy.failed,github=*"
//     The signal types each source may deliver: entries separated by commas (or whitespace), each
//     `<source>=<type>|<type>…`; `*` alone allows any type. A source without an entry may deliver none
//     (its verified webhooks answer 403): a secret held by an outside system should let it say only
//     what it was set up to say, not, say, a signal another run waits on as its go-ahead. A source
//     named here that TETHER_WEBHOOK_SECRETS does not name is a configuration error (a typo).
//   TETHER_WEBHOOK_TOLERANCE_SECONDS (default 300): how far webhook-timestamp may be from this
//     server's clock, either way, in whole seconds (1 to 86400).
// A malformed value is a configuration error (thrown; the message never contains a secret). lib/config.ts
// parses the three variables with these functions: getConfig().webhooks is the configuration.

/** The signal types a source may deliver: a list, or any ("*"). */
export type SignalTypeAllowance = ReadonlySet<string> | "any";

export type WebhookConfig = {
  /** Source name → its HMAC keys (the decoded secrets). */
  sources: ReadonlyMap<string, readonly Buffer[]>;
  /** Source name → the signal types it may deliver; a source not in the map may deliver none. */
  signalTypes: ReadonlyMap<string, SignalTypeAllowance>;
  toleranceSeconds: number;
};

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;
export const SOURCE_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const SECRET_PREFIX = "whsec_";
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

/** The HMAC key of a `whsec_<base64>` secret, or null when it is not one. */
export function decodeWebhookSecret(secret: string): Buffer | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  const key = Buffer.from(encoded, "base64");
  // Buffer.from skips what it cannot decode: only a round trip proves the text was all base64.
  if (key.toString("base64").replace(/=+$/, "") !== encoded.replace(/=+$/, "")) return null;
  return key.length >= MIN_SECRET_BYTES && key.length <= MAX_SECRET_BYTES ? key : null;
}

export function parseWebhookSecrets(raw: string | undefined): Map<string, Buffer[]> {
  const sources = new Map<string, Buffer[]>();
  const entries = (raw ?? "").split(/[\s,]+/).filter(Boolean);
  entries.forEach((entry, i) => {
    const at = entry.indexOf("=");
    const name = at === -1 ? entry : entry.slice(0, at);
    const where = `TETHER_WEBHOOK_SECRETS entry ${i + 1}`;
    if (at === -1 || !SOURCE_NAME.test(name)) {
      throw new Error(`${where}: expected <source>=whsec_<base64>, where <source> is 1-40 of a-z, 0-9, "-", "_"`);
    }
    const key = decodeWebhookSecret(entry.slice(at + 1));
    if (!key)
      throw new Error(
        `${where} (${name}): the secret must be "whsec_" followed by the base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes`,
      );
    sources.set(name, [...(sources.get(name) ?? []), key]);
  });
  return sources;
}

// A signal type as the webhook body's `type` may be (1–100 characters), without the list's separators.
const SIGNAL_TYPE = /^[^\s,|=*]{1,100}$/;

/** TETHER_WEBHOOK_SIGNAL_TYPES → source → allowance; `sources` (from the secrets) catches a misspelt name. */
export function parseWebhookSignalTypes(
  raw: string | undefined,
  sources: ReadonlyMap<string, unknown>,
): Map<string, SignalTypeAllowance> {
  const allowances = new Map<string, SignalTypeAllowance>();
  const entries = (raw ?? "").split(/[\s,]+/).filter(Boolean);
  entries.forEach((entry, i) => {
    const at = entry.indexOf("=");
    const name = at === -1 ? entry : entry.slice(0, at);
    const where = `TETHER_WEBHOOK_SIGNAL_TYPES entry ${i + 1}`;
    if (at === -1 || !SOURCE_NAME.test(name))
      throw new Error(`${where}: expected <source>=<type>|<type>… or <source>=*`);
    if (!sources.has(name)) throw new Error(`${where}: no source "${name}" in TETHER_WEBHOOK_SECRETS`);
    if (allowances.has(name))
      throw new Error(`${where}: source "${name}" is named twice (list its types in one entry, separated by "|")`);
    const list = entry.slice(at + 1);
    if (list === "*") return void allowances.set(name, "any");
    const types = list.split("|");
    const bad = types.find((type) => !SIGNAL_TYPE.test(type));
    if (bad !== undefined)
      throw new Error(
        `${where} (${name}): ${JSON.stringify(bad)} is not a signal type (1-100 characters without spaces, ",", "|", "=", "*"); "*" alone allows any type`,
      );
    allowances.set(name, new Set(types));
  });
  return allowances;
}

/** Whether the configuration lets `source` deliver a signal of `type`. */
export function mayDeliverSignalType(
  config: Pick<WebhookConfig, "signalTypes">,
  source: string,
  type: string,
): boolean {
  const allowance = config.signalTypes.get(source);
  return allowance === "any" || (allowance !== undefined && allowance.has(type));
}

export function parseWebhookTolerance(raw: string | undefined): number {
  const text = raw?.trim();
  if (!text) return DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 86_400) {
    throw new Error(`TETHER_WEBHOOK_TOLERANCE_SECONDS must be a whole number of seconds from 1 to 86400, got "${raw}"`);
  }
  return value;
}
