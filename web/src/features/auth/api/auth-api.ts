import { api } from "../../../lib/api-client";

export const loginRequest = (input: { email: string; password: string; code?: string; device?: string }) => api.auth.login.post(input);
export const registerRequest = (input: { name: string; email: string; password: string }) => api.auth.register.post(input);
export const forgotPasswordRequest = (email: string) => api.auth["forgot-password"].post({ email });
export const checkResetTokenRequest = (token: string) => api.auth["reset-password"]({ token }).get();
export const resetPasswordRequest = (token: string, password: string) => api.auth["reset-password"]({ token }).post({ password });
export const profileRequest = () => api.user.profile.get();
/** Ends every session of the token's user on the server (the token is passed: storage is being cleared). */
export const logoutRequest = (token: string) => api.auth.logout.post(undefined, { headers: { authorization: `Bearer ${token}` } });

/** The signed-in user as the server answers it at sign-in (its type comes from the server). */
export type SessionUser = NonNullable<Awaited<ReturnType<typeof loginRequest>>["data"]>["user"];
