import { useSyncExternalStore } from "react";
import { Button, type ButtonVariant } from "./button";
import { Dialog } from "./dialog";

type ConfirmRequest = {
  title: string;
  message: string;
  confirmLabel?: string;
  cancelLabel?: string;
  variant?: ButtonVariant;
  resolve: (confirmed: boolean) => void;
};

let pending: ConfirmRequest | null = null;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

/** Asks the user to confirm an action in a modal dialog; resolves true on confirm. */
export function askConfirmation(request: Omit<ConfirmRequest, "resolve">): Promise<boolean> {
  pending?.resolve(false);
  return new Promise((resolve) => {
    pending = { ...request, resolve };
    emit();
  });
}

function settle(confirmed: boolean) {
  const request = pending;
  pending = null;
  emit();
  request?.resolve(confirmed);
}

/** Renders the confirmation asked for with askConfirmation; mount once. */
export function ConfirmationHost() {
  const request = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => pending,
    () => pending,
  );
  return (
    <Dialog
      open={request !== null}
      onClose={() => settle(false)}
      title={request?.title ?? ""}
      description={request?.message}
      footer={
        <>
          <Button variant="outline" onClick={() => settle(false)}>
            {request?.cancelLabel ?? "Cancel"}
          </Button>
          <Button variant={request?.variant ?? "destructive"} onClick={() => settle(true)} autoFocus>
            {request?.confirmLabel ?? "Confirm"}
          </Button>
        </>
      }
    />
  );
}
