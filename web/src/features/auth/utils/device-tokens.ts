// The device token each account's sign-in answered in this browser, kept past sign-out: sent back
// with the next sign-in, it lets the owner through while someone guessing the password has slowed
// the account down. It is no credential on its own (the password is still needed).
import { DEVICE_TOKENS_STORAGE_KEY } from "../../../config/constants";

const MAX_ACCOUNTS = 10;

function read(): Record<string, string> {
  try {
    const parsed = JSON.parse(window.localStorage.getItem(DEVICE_TOKENS_STORAGE_KEY) ?? "{}") as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

const keyOf = (email: string) => email.trim().toLowerCase();

/** The token this browser holds for the account, if any. */
export const deviceTokenOf = (email: string): string | undefined => {
  const token = read()[keyOf(email)];
  return typeof token === "string" ? token : undefined;
};

/** Keeps the token a sign-in answered (the most recent accounts only). */
export function rememberDeviceToken(email: string, token: string) {
  try {
    const entries = Object.entries(read()).filter(([key]) => key !== keyOf(email));
    const kept = Object.fromEntries([...entries.slice(-(MAX_ACCOUNTS - 1)), [keyOf(email), token]]);
    window.localStorage.setItem(DEVICE_TOKENS_STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // storage disabled: the browser is simply not remembered
  }
}
