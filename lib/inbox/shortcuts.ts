// Single-key shortcuts of the inbox (j/k/Enter on the list; a/e/r/d on the list and the packet page).
// They never fire while a person types, with a modifier held, or while a dialog is open.

export type ShortcutTarget = {
  tagName?: string;
  isContentEditable?: boolean;
  type?: string;
  closest?: (selector: string) => unknown;
} | null;
export type ShortcutEvent = {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  target: ShortcutTarget | EventTarget | null;
};

const TEXT_INPUT_TYPES = new Set([
  "text",
  "search",
  "email",
  "url",
  "tel",
  "password",
  "number",
  "date",
  "datetime-local",
  "month",
  "time",
  "week",
  "",
]);

export function isTypingTarget(target: ShortcutTarget | EventTarget | null): boolean {
  const el = target as ShortcutTarget;
  if (!el || typeof el !== "object") return false;
  if (el.isContentEditable) return true;
  const tag = (el.tagName ?? "").toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return TEXT_INPUT_TYPES.has((el.type ?? "").toLowerCase());
  return false;
}

/** The shortcut key this event stands for, or null when it must be left alone. */
export function shortcutKey(event: ShortcutEvent, isDialogOpen: boolean): string | null {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isDialogOpen) return null;
  if (isTypingTarget(event.target)) return null;
  return event.key === "Enter" ? "Enter" : event.key.length === 1 ? event.key.toLowerCase() : null;
}

export const LIST_SHORTCUTS: Array<[string, string]> = [
  ["j / k", "next / previous packet"],
  ["Enter", "open it"],
  ["a", "approve"],
  ["e", "edit"],
  ["r", "reject"],
  ["d", "redirect"],
  ["x", "select for a bulk decision"],
];
export const PACKET_SHORTCUTS: Array<[string, string]> = [
  ["a", "approve"],
  ["e", "edit"],
  ["r", "reject"],
  ["d", "redirect"],
];
