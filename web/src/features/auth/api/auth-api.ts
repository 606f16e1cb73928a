import { api } from "../../../lib/api-client";

export const loginRequest = (input: { email: string; password: string; code?: string; device?: string }) => api.auth.login.post(input);
export const registerRequest = (input: { name: string; email: string; password: string }) => api.auth.register.post(input);
export const forgotPasswordRequest = (email: string) => api.auth["forgot-password"].post({ email });
export const checkResetTokenRequest = (token: string) => api.auth["reset-password"]({ token }).get();
export const resetPasswordRequest = (token: string, password: string) => api.auth["reset-password"]({ token }).post({ password });
export const startSsoRequest = (email: string) => api.auth.sso.start.post({ email });
export const exchangeSsoCodeRequest = (code: string) => api.auth.sso.exchange.post({ code });
