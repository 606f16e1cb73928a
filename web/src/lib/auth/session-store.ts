import { atom, getDefaultStore } from "jotai";
import type { SessionUser } from "./session-api";

export type Session = { token: string; user: SessionUser };

/** The signed-in session, or null. */
export const sessionAtom = atom<Session | null>(null);
/** A suspended account's reason and date, answered to a sign-in instead of a session (the /banned page). */
export type BanNotice = { banReason: string | null; bannedAt: string | null };
export const banNoticeAtom = atom<BanNotice | null>(null);
/** True until the stored session has been read at start-up. */
export const sessionLoadingAtom = atom(true);

/** The store the app renders with, also used by code outside components (timers, API callbacks). */
export const sessionStore = getDefaultStore();
