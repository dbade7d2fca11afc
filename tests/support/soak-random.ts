import { seededRandom } from "../../lib/sandbox/context";

// A seeded random source for the soak (the sandbox's mulberry32): the same seed draws the same schedule, so a
// failure can be replayed with TETHER_SOAK_SEED=<seed>. (Process timing still varies between runs.)

export type SoakRandom = {
  readonly seed: number;
  /** A float in [0, 1). */
  next: () => number;
  /** An integer in [min, max]. */
  int: (min: number, max: number) => number;
  chance: (p: number) => boolean;
  pick: <T>(items: readonly T[]) => T;
};

export function soakSeed(): number {
  const given = process.env.TETHER_SOAK_SEED;
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`TETHER_SOAK_SEED must be an integer, got "${given}"`);
    return seed >>> 0;
  }
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

export function soakRandom(seed: number): SoakRandom {
  const next = seededRandom(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[int(0, items.length - 1)];
    },
  };
}
