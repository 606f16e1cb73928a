import { api } from "../../../lib/api-client";
import type { Credentials } from "../../../components/auth/reauthentication-dialog";

const protection = api.settings["backup-protection"];

export const backupProtectionRequest = () => protection.get();
export const protectBackupsRequest = (credentials: Credentials) => protection.post(credentials);
export const requestProtectionOffRequest = (credentials: Credentials) => protection["turn-off"].post(credentials);
export const cancelProtectionOffRequest = () => protection["turn-off"].delete();

// Answers as the server types them.
export type BackupProtection = NonNullable<Awaited<ReturnType<typeof backupProtectionRequest>>["data"]>;
