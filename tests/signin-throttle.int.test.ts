import { randomInt } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findAuditLog, writeAudit } from "../lib/audit/audit-log";
import {
  authorizeThrottled,
  createSignInThrottle,
  SIGN_IN_LIMITS,
  signInThrottleFor,
  type SignInThrottle,
} from "../lib/auth/throttle";
import { createUser } from "../lib/commands/create-user";
import { createDb, type Db } from "../lib/db";
import { providers, uid } from "./support/runtime";

// Security (docs/security.md): password sign-ins are throttled per account and per client address. Each attempt goes
// through the Credentials provider's authorize function (lib/auth.ts hands Auth.js exactly this one)
// against a real database and the real password check, from the address in the request's
// X-Forwarded-For. On Postgres the attempts alternate between two clients of the database, as between
// two console replicas: the counts are the database's, so the limits hold once, not once per replica.
// (Auth.js's own route cannot be loaded under vitest: next-auth imports "next/server"
// by a path Node's ESM resolver refuses; the sign-in form's message is covered in tests/auth.test.ts.)

const password = "a sturdy passphrase 42";
const email = (name = "user") => `${uid(name)}@test.example`.toLowerCase();
const address = () => `198.51.${randomInt(0, 255)}.${randomInt(1, 255)}`;

type Outcome = "signed-in" | "refused";
const LIMITS = {
  perAccount: { max: 3, windowMs: SIGN_IN_LIMITS.perAccount.windowMs },
  perAddress: { max: 5, windowMs: SIGN_IN_LIMITS.perAddress.windowMs },
};

describe.each(providers())("the throttled credentials authorize [%s]", (provider, url) => {
  let db: Db;
  let replica: Db;
  let throttles: SignInThrottle[];
  let attempts = 0;
  let savedTrustProxy: string | undefined;
  beforeAll(() => {
    savedTrustProxy = process.env.TETHER_TRUST_PROXY;
    delete process.env.TETHER_TRUST_PROXY;
    db = createDb(url);
    replica = createDb(url);
  });
  beforeEach(() => {
    // The production limits (SIGN_IN_LIMITS: 10 per account, 30 per address) scaled down: every attempt
    // runs the real scrypt check, and the logic does not depend on the numbers.
    // On Postgres the counts are rows every client shares (unique emails and addresses keep tests apart).
    throttles =
      provider === "postgres"
        ? [signInThrottleFor(db, LIMITS), signInThrottleFor(replica, LIMITS)]
        : [createSignInThrottle(LIMITS)];
  });
  afterAll(async () => {
    if (savedTrustProxy === undefined) delete process.env.TETHER_TRUST_PROXY;
    else process.env.TETHER_TRUST_PROXY = savedTrustProxy;
    await db.$disconnect();
    await replica.$disconnect();
  });

  async function signInOnce(credentials: { email: string; password: string }, forwardedFor: string): Promise<Outcome> {
    const throttle = throttles[attempts++ % throttles.length];
    const user = await authorizeThrottled(
      { db, throttle, audit: (entry) => writeAudit(db, entry) },
      credentials,
      new Headers({ "x-forwarded-for": forwardedFor }),
    );
    if (user) expect(user.email).toBe(credentials.email);
    return user ? "signed-in" : "refused";
  }

  const createPerson = async () => {
    const person = email("person");
    await createUser({ db }, { email: person, role: "reviewer", password }, { by: "test" });
    return person;
  };

  it("an address that failed on many accounts is locked for every account, even with the right password; another address is not", async () => {
    const person = await createPerson();
    const attacker = address();
    const { max } = LIMITS.perAddress;
    // one wrong password on each of `max` accounts: no account reaches its own limit
    for (let i = 0; i < max; i++)
      expect(await signInOnce({ email: email("sprayed"), password: "Winter2026!" }, attacker)).toBe("refused");

    expect(await signInOnce({ email: person, password }, attacker)).toBe("refused");
    expect(await signInOnce({ email: person, password }, address())).toBe("signed-in");
    expect(await findAuditLog(db, { actor: person })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: "auth.signin_failed",
          data: { provider: "credentials", reason: "throttled-address", address: attacker },
        }),
      ]),
    );
  });

  it("an account that failed its limit is locked from every address; a success before that clears its count", async () => {
    const person = await createPerson();
    const { max } = LIMITS.perAccount;
    for (let i = 0; i < max - 1; i++)
      expect(await signInOnce({ email: person, password: "wrong password 1" }, address())).toBe("refused");
    expect(await signInOnce({ email: person, password }, address())).toBe("signed-in"); // one short of the limit: not locked, and now cleared
    for (let i = 0; i < max; i++)
      expect(await signInOnce({ email: person, password: "wrong password 2" }, address())).toBe("refused");
    expect(await signInOnce({ email: person, password }, address())).toBe("refused");
  });

  it("a success does not clear an address's count: one known password cannot reset it between guesses", async () => {
    const known = await createPerson();
    const attacker = address();
    for (let i = 0; i < LIMITS.perAddress.max - 1; i++) {
      expect(await signInOnce({ email: email("sprayed"), password: "Winter2026!" }, attacker)).toBe("refused");
      if (i === 2) expect(await signInOnce({ email: known, password }, attacker)).toBe("signed-in");
    }
    expect(await signInOnce({ email: known, password }, attacker)).toBe("signed-in"); // one failure short: still under
    expect(await signInOnce({ email: email("sprayed"), password: "Winter2026!" }, attacker)).toBe("refused"); // the last one
    expect(await signInOnce({ email: known, password }, attacker)).toBe("refused");
  });

  it("the address is the entry the nearest proxy wrote: a client's own X-Forwarded-For entries do not dodge the lock", async () => {
    const person = await createPerson();
    const attacker = address();
    // Behind one proxy that appends (nginx's $proxy_add_x_forwarded_for): "<whatever the client sent>, <client>".
    process.env.TETHER_TRUST_PROXY = "1";
    try {
      for (let i = 0; i < LIMITS.perAddress.max; i++) {
        expect(await signInOnce({ email: email("sprayed"), password: "Winter2026!" }, `10.9.${i}.1, ${attacker}`)).toBe(
          "refused",
        );
      }
      expect(await signInOnce({ email: person, password }, `203.0.113.77, ${attacker}`)).toBe("refused");
      expect(await signInOnce({ email: person, password }, `${attacker}, ${address()}`)).toBe("signed-in");
    } finally {
      delete process.env.TETHER_TRUST_PROXY;
    }
  });
});
