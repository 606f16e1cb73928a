// The calls the session itself makes; sign-in and registration stay with the auth feature's forms.
import { api } from "../api-client";

/** Ends every session of the token's user on the server (the token is passed: storage is being cleared). */
export const logoutRequest = (token: string) => api.auth.logout.post(undefined, { headers: { authorization: `Bearer ${token}` } });

/** The signed-in user as the server answers it at sign-in (its type comes from the server). */
export type SessionUser = NonNullable<Awaited<ReturnType<typeof api.auth.login.post>>["data"]>["user"];
