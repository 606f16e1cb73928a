// Contact points shown on the public pages. Links only: following one is the visitor's choice,
// and no page loads anything from these hosts.
export const SUPPORT_EMAIL = "support@dbvault.app";
export const PRIVACY_EMAIL = "privacy@dbvault.app";
export const COMMUNITY_INVITE_URL = "https://discord.gg/dbvault";
export const COMMUNITY_NAME = "DBVault Community";
export const COMPANY_NAME = "DBVault";
