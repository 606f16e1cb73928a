// The articles a new installation's knowledge base starts with (see ../seed.ts for the header format).
// Imported as text so a compiled server binary carries them inside.
import addingDatabasesAndPlanLimits from "./adding-databases-and-plan-limits.md" with { type: "text" };
import connectingToMongodbAtlas from "./connecting-to-mongodb-atlas.md" with { type: "text" };
import connectingWithClientCertificates from "./connecting-with-client-certificates.md" with { type: "text" };
import backupsThatSurvive from "./backups-that-survive.md" with { type: "text" };
import apiTokensForScriptsAndCi from "./api-tokens-for-scripts-and-ci.md" with { type: "text" };
import agentShowsOffline from "./agent-shows-offline.md" with { type: "text" };
import downloadingAndDecryptingABackup from "./downloading-and-decrypting-a-backup.md" with { type: "text" };
import faq from "./faq.md" with { type: "text" };
import findingABackup from "./finding-a-backup.md" with { type: "text" };
import howDbvaultWorks from "./how-dbvault-works.md" with { type: "text" };
import installingTheAgent from "./installing-the-agent.md" with { type: "text" };
import keepingYourEncryptionKeySafe from "./keeping-your-encryption-key-safe.md" with { type: "text" };
import notificationsAndAuditLog from "./notifications-and-audit-log.md" with { type: "text" };
import pointInTimeRecovery from "./point-in-time-recovery.md" with { type: "text" };
import quickStart from "./quick-start.md" with { type: "text" };
import recoveringOnANewServer from "./recovering-on-a-new-server.md" with { type: "text" };
import regeneratingYourApiKey from "./regenerating-your-api-key.md" with { type: "text" };
import restoringABackup from "./restoring-a-backup.md" with { type: "text" };
import runningTheAgentWithSystemd from "./running-the-agent-with-systemd.md" with { type: "text" };
import schedulesAndRetention from "./schedules-and-retention.md" with { type: "text" };
import teamsAndRoles from "./teams-and-roles.md" with { type: "text" };
import theAgentCommandLineForOperators from "./the-agent-command-line-for-operators.md" with { type: "text" };
import singleSignOnWithOpenidConnect from "./single-sign-on-with-openid-connect.md" with { type: "text" };
import troubleshootingFailedBackups from "./troubleshooting-failed-backups.md" with { type: "text" };
import troubleshootingRestores from "./troubleshooting-restores.md" with { type: "text" };
import verifyingBackups from "./verifying-backups.md" with { type: "text" };
import zeroKnowledgeSecurityModel from "./zero-knowledge-security-model.md" with { type: "text" };

export const articleFiles: Record<string, string> = {
  "adding-databases-and-plan-limits.md": addingDatabasesAndPlanLimits,
  "agent-shows-offline.md": agentShowsOffline,
  "api-tokens-for-scripts-and-ci.md": apiTokensForScriptsAndCi,
  "backups-that-survive.md": backupsThatSurvive,
  "connecting-to-mongodb-atlas.md": connectingToMongodbAtlas,
  "connecting-with-client-certificates.md": connectingWithClientCertificates,
  "downloading-and-decrypting-a-backup.md": downloadingAndDecryptingABackup,
  "faq.md": faq,
  "finding-a-backup.md": findingABackup,
  "how-dbvault-works.md": howDbvaultWorks,
  "installing-the-agent.md": installingTheAgent,
  "keeping-your-encryption-key-safe.md": keepingYourEncryptionKeySafe,
  "notifications-and-audit-log.md": notificationsAndAuditLog,
  "point-in-time-recovery.md": pointInTimeRecovery,
  "quick-start.md": quickStart,
  "recovering-on-a-new-server.md": recoveringOnANewServer,
  "regenerating-your-api-key.md": regeneratingYourApiKey,
  "restoring-a-backup.md": restoringABackup,
  "running-the-agent-with-systemd.md": runningTheAgentWithSystemd,
  "schedules-and-retention.md": schedulesAndRetention,
  "teams-and-roles.md": teamsAndRoles,
  "the-agent-command-line-for-operators.md": theAgentCommandLineForOperators,
  "single-sign-on-with-openid-connect.md": singleSignOnWithOpenidConnect,
  "troubleshooting-failed-backups.md": troubleshootingFailedBackups,
  "troubleshooting-restores.md": troubleshootingRestores,
  "verifying-backups.md": verifyingBackups,
  "zero-knowledge-security-model.md": zeroKnowledgeSecurityModel,
};
