// A small cron parser: 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first,
// read in an IANA time zone through Intl (no dependency). Each field takes *, numbers, names (jan, mon),
// ranges a-b, steps */n and a-b/n, and lists. As in Vixie cron, when both day fields are restricted a day
// matching either one matches. Around daylight-saving changes: a wall time the clocks skip does not fire,
// a wall time that happens twice fires once, at its first occurrence.

export type CronSpec = {
  seconds: Set<number>;
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Whether each day field was restricted (not "*"): both restricted means either matches. */
  daysRestricted: boolean;
  weekdaysRestricted: boolean;
  timeZone: string;
};

export class CronError extends Error {}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

type FieldRule = { name: string; min: number; max: number; names?: string[]; namesFrom?: number };
const SECOND: FieldRule = { name: "second", min: 0, max: 59 };
const MINUTE: FieldRule = { name: "minute", min: 0, max: 59 };
const HOUR: FieldRule = { name: "hour", min: 0, max: 23 };
const DAY: FieldRule = { name: "day of month", min: 1, max: 31 };
const MONTH: FieldRule = { name: "month", min: 1, max: 12, names: MONTHS, namesFrom: 1 };
// 7 is Sunday too, as most crons allow.
const WEEKDAY: FieldRule = { name: "day of week", min: 0, max: 7, names: WEEKDAYS, namesFrom: 0 };

export function parseCron(expression: string, timeZone = "UTC"): CronSpec {
  assertTimeZone(timeZone);
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    throw new CronError(
      `"${expression}" has ${fields.length} fields; a cron expression has 5 (minute hour day month weekday) or 6 (seconds first)`,
    );
  }
  const [second, minute, hour, day, month, weekday] = fields.length === 6 ? fields : ["0", ...fields];
  const weekdays = parseField(weekday, WEEKDAY);
  if (weekdays.delete(7)) weekdays.add(0);
  return {
    seconds: parseField(second, SECOND),
    minutes: parseField(minute, MINUTE),
    hours: parseField(hour, HOUR),
    days: parseField(day, DAY),
    months: parseField(month, MONTH),
    weekdays,
    daysRestricted: day !== "*" && day !== "?",
    weekdaysRestricted: weekday !== "*" && weekday !== "?",
    timeZone,
  };
}

function parseField(text: string, rule: FieldRule): Set<number> {
  const values = new Set<number>();
  for (const part of text.toLowerCase().split(",")) {
    const [range, stepText] = part.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new CronError(`bad step "${stepText}" in the ${rule.name} field`);
    let from: number;
    let to: number;
    if (range === "*" || range === "?") {
      [from, to] = [rule.min, rule.max];
    } else if (range.includes("-")) {
      const [a, b] = range.split("-");
      [from, to] = [value(a, rule), value(b, rule)];
      if (from > to) throw new CronError(`the range "${range}" in the ${rule.name} field runs backwards`);
    } else {
      from = value(range, rule);
      // "5/15" means from 5 to the end in steps of 15.
      to = stepText === undefined ? from : rule.max;
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

function value(text: string, rule: FieldRule): number {
  const named = rule.names?.indexOf(text) ?? -1;
  const n = named >= 0 ? named + (rule.namesFrom ?? 0) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < rule.min || n > rule.max) {
    throw new CronError(
      `"${text}" is not a ${rule.name} (${rule.min}-${rule.max}${rule.names ? ` or ${rule.names.slice(0, 3).join(", ")}…` : ""})`,
    );
  }
  return n;
}

export function assertTimeZone(timeZone: string) {
  try {
    formatter(timeZone);
  } catch {
    throw new CronError(`"${timeZone}" is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`);
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time in the zone at an instant, as milliseconds of a UTC date with the same fields. */
function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant)))
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  return (
    Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) +
    (((instant % 1000) + 1000) % 1000)
  );
}

/**
 * The instant a wall-clock time happens in the zone: its first occurrence when it happens twice (clocks
 * going back), null when it does not happen (clocks going forward skip it).
 */
function instantOf(wall: number, timeZone: string): number | null {
  const DAY_MS = 86_400_000;
  // The offsets in force a day either side cover both sides of any change near this time.
  const offsets = new Set([wall - DAY_MS, wall, wall + DAY_MS].map((t) => wallClock(t, timeZone) - t));
  const candidates = [...offsets].map((offset) => wall - offset).filter((t) => wallClock(t, timeZone) === wall);
  return candidates.length ? Math.min(...candidates) : null;
}

const SEARCH_YEARS = 5;

/** The first tick strictly after `after`, or null when the expression never fires within five years (e.g. 30 February). */
export function nextTick(spec: CronSpec, after: Date): Date | null {
  const limit = after.getTime() + SEARCH_YEARS * 366 * 86_400_000;
  // Start at the next whole second of the wall clock.
  let wall = Math.floor(wallClock(after.getTime(), spec.timeZone) / 1000) * 1000 + 1000;
  while (wall < limit) {
    const match = nextMatchingWall(spec, wall, limit);
    if (match === null) return null;
    const instant = instantOf(match, spec.timeZone);
    if (instant !== null && instant > after.getTime()) return new Date(instant);
    wall = match + 1000;
  }
  return null;
}

function nextMatchingWall(spec: CronSpec, from: number, limit: number): number | null {
  let t = from;
  while (t < limit) {
    const d = new Date(t);
    if (!spec.months.has(d.getUTCMonth() + 1)) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      continue;
    }
    if (!dayMatches(spec, d)) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
      continue;
    }
    if (!spec.hours.has(d.getUTCHours())) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
      continue;
    }
    if (!spec.minutes.has(d.getUTCMinutes())) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes() + 1);
      continue;
    }
    if (!spec.seconds.has(d.getUTCSeconds())) {
      t += 1000;
      continue;
    }
    return t;
  }
  return null;
}

function dayMatches(spec: CronSpec, d: Date): boolean {
  const byDay = spec.days.has(d.getUTCDate());
  const byWeekday = spec.weekdays.has(d.getUTCDay());
  if (spec.daysRestricted && spec.weekdaysRestricted) return byDay || byWeekday;
  return byDay && byWeekday;
}

/** The ticks in (after, until], oldest first, at most `max` of them (the newest are kept when there are more). */
export function ticksBetween(spec: CronSpec, after: Date, until: Date, max = 1000): Date[] {
  const ticks: Date[] = [];
  for (let t = nextTick(spec, after); t && t <= until; t = nextTick(spec, t)) {
    ticks.push(t);
    if (ticks.length > max) ticks.shift();
  }
  return ticks;
}
