// Knobs of `npm run bench`, read from the environment (BENCH_*).

export const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name}=${raw} is not a number`);
  return value;
};

export const list = (name: string, fallback: string[]): string[] => {
  const raw = process.env[name];
  return raw
    ? raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : fallback;
};
