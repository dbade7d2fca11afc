"use client";
import { useEffect, useRef, type ReactNode } from "react";
import { Button, type ButtonVariant } from "./button";

export type ConfirmDialogProps = {
  isOpen: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  confirmVariant?: ButtonVariant;
  isBusy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

/**
 * A modal confirmation on the native <dialog> (focus trap, Escape to cancel, inert background for free).
 * The caller owns `isOpen`; the dialog focuses its confirm button so Enter confirms and Escape cancels.
 */
export function ConfirmDialog({
  isOpen,
  title,
  children,
  confirmLabel,
  confirmVariant = "primary",
  isBusy,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (isOpen && !dialog.open) {
      dialog.showModal();
      // React's autoFocus ran while the dialog was still closed; showModal then focused Cancel (the first
      // button). Focus a field of the content marked data-autofocus, else the confirm button.
      dialog.querySelector<HTMLElement>("[data-autofocus], [data-confirm]")?.focus();
    }
    if (!isOpen && dialog.open) dialog.close();
  }, [isOpen]);
  return (
    <dialog
      ref={ref}
      aria-labelledby="confirm-dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
      className="m-auto w-full max-w-lg rounded-lg border border-zinc-200 bg-white p-0 shadow-xl backdrop:bg-zinc-950/40"
    >
      {isOpen && (
        <div className="p-5">
          <h2 id="confirm-dialog-title" className="text-base font-semibold text-zinc-900">
            {title}
          </h2>
          <div className="mt-2 text-sm text-zinc-700">{children}</div>
          <div className="mt-5 flex justify-end gap-2">
            <Button onClick={onCancel}>Cancel</Button>
            <Button variant={confirmVariant} isBusy={isBusy} onClick={onConfirm} autoFocus data-confirm>
              {confirmLabel}
            </Button>
          </div>
        </div>
      )}
    </dialog>
  );
}
