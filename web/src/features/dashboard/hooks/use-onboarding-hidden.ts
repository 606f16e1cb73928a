// Whether this user hid the onboarding checklist, kept in this browser (hiding it is a matter of
// taste, not an account setting).
import { useCallback, useState } from "react";

const keyFor = (userId: string) => `dbvault.onboarding-hidden.${userId}`;

function readHidden(userId: string | null): boolean {
  if (!userId || typeof window === "undefined") return false;
  try {
    return window.localStorage.getItem(keyFor(userId)) === "1";
  } catch {
    return false; // storage refused (private mode): shown
  }
}

export function useOnboardingHidden(userId: string | null): [hidden: boolean, hide: () => void] {
  const [hiddenFor, setHiddenFor] = useState<string | null>(null);
  const hidden = hiddenFor === userId || readHidden(userId);
  const hide = useCallback(() => {
    if (!userId) return;
    try {
      window.localStorage.setItem(keyFor(userId), "1");
    } catch {
      // hidden for this visit only
    }
    setHiddenFor(userId);
  }, [userId]);
  return [hidden, hide];
}
