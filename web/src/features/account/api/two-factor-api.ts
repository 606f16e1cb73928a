import { api } from "../../../lib/api-client";

const twoFactor = api.auth["two-factor"];

export const twoFactorStatusRequest = () => twoFactor.get();
export const startTwoFactorSetupRequest = (password: string) => twoFactor.setup.post({ password });
export const enableTwoFactorRequest = (code: string) => twoFactor.enable.post({ code });
export const disableTwoFactorRequest = (input: { password: string; code: string }) => twoFactor.disable.post(input);
export const newRecoveryCodesRequest = (input: { password: string; code: string }) => twoFactor["recovery-codes"].post(input);

export type TwoFactorStatus = NonNullable<Awaited<ReturnType<typeof twoFactorStatusRequest>>["data"]>;
export type TwoFactorSetup = NonNullable<Awaited<ReturnType<typeof startTwoFactorSetupRequest>>["data"]>;
