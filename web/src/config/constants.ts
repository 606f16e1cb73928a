// Product constants from the spec (sections 4, 8 and 9), in one place.

export const PRODUCT_NAME = "DBVault";

/** The stored auth record {token, user, timestamp} lives under this one key (spec 3). */
export const AUTH_STORAGE_KEY = "dbvault.auth";
/** What the browser also keeps after a registration (spec 3: logged-in flag, email, name, user id). */
export const REGISTRATION_STORAGE_KEY = "dbvault.registration";
/** Per account, the device token of this browser's last sign-in (kept after sign-out). */
export const DEVICE_TOKENS_STORAGE_KEY = "dbvault.devices";

export const TOKEN_CHECK_INTERVAL_MS = 30_000;
export const RESET_REDIRECT_MS = 3_000;
export const COPIED_FEEDBACK_MS = 2_000;

export const TOAST_DURATION_MS = 5_000;
export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY_MS = 1_000_000;
export const TOAST_SWIPE_THRESHOLD_PX = 50;
export const TOAST_HOTKEY = "F8";

/** Default offset of the smooth-scroll helper: clears the sticky navigation bar. */
export const SCROLL_OFFSET_PX = 120;

export const MIN_PASSWORD_LENGTH = 6;
export const MIN_NAME_LENGTH = 2;

export const KB_CATEGORIES = ["getting-started", "setup", "usage", "troubleshooting", "faq", "security"] as const;
export type KbCategory = (typeof KB_CATEGORIES)[number];

/** The organization chosen in the navbar's switcher, with the account it was chosen by. */
export const ORGANIZATION_STORAGE_KEY = "dbvault.organization";
