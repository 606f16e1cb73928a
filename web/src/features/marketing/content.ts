import type { IconName } from "../../components/ui/icons";

export type ProductFeature = { id: string; icon: IconName; title: string; summary: string; points: string[] };

/** The eight product features (spec 2, /features), also summarised on the landing page. */
export const PRODUCT_FEATURES: ProductFeature[] = [
  {
    id: "encryption",
    icon: "lock",
    title: "End-to-end encryption",
    summary: "Every backup is encrypted with AES-256 on your own server before a single byte leaves it.",
    points: [
      "AES-256-GCM authenticated encryption at the source",
      "Each file is sealed in chunks, so tampering, truncation or a wrong key is detected",
      "Data stays encrypted in transit and at rest in storage",
    ],
  },
  {
    id: "zero-knowledge",
    icon: "eyeOff",
    title: "Zero-knowledge architecture",
    summary: "We never see your connection strings, your encryption key or your data.",
    points: [
      "Connection strings and keys stay in the agent's configuration on your server",
      "The service only stores ciphertext and database names",
      "Even a full breach of our systems exposes nothing readable",
    ],
  },
  {
    id: "scheduling",
    icon: "clock",
    title: "Flexible scheduling",
    summary: "Hourly, daily, weekly or monthly backups, with retention you choose.",
    points: ["Schedules from hourly to monthly, per account", "Retention from 3 days up to 6 months", "Trigger a manual backup whenever you need one"],
  },
  {
    id: "restore",
    icon: "restore",
    title: "1-click restore",
    summary: "Restore any completed backup from the dashboard, or download it for safekeeping.",
    points: [
      "A guided, three-step confirmation before anything is replaced",
      "Live progress: documents restored, current collection, time remaining",
      "Download the encrypted file and decrypt it anywhere your key is",
    ],
  },
  {
    id: "history",
    icon: "history",
    title: "Detailed backup history",
    summary: "Every backup with its timestamp, size and status, plus a full restore history.",
    points: ["Timestamps, sizes and statuses for every run", "Restore history with outcome and details", "Audit logs of every action on your account"],
  },
  {
    id: "compliance",
    icon: "shield",
    title: "Compliance ready",
    summary: "Encryption, audit trails and data minimisation that support GDPR and HIPAA-aligned practices.",
    points: [
      "Audit logs for backups, restores, settings and key changes",
      "Only your e-mail address is kept as personal data",
      "Retention limits that delete old backups automatically",
    ],
  },
  {
    id: "agent",
    icon: "terminal",
    title: "Lightweight agent",
    summary: "A single small program on your server that uses MongoDB's own dump and restore tools.",
    points: [
      "Uses native mongodump and mongorestore where installed",
      "Streams dump, compression, encryption and upload without temp files",
      "Authenticates with your personal API key",
    ],
  },
  {
    id: "storage",
    icon: "cloud",
    title: "Scalable cloud storage",
    summary: "Encrypted backups land in durable object storage that grows with your data.",
    points: [
      "Storage that scales from megabytes to terabytes",
      "Uploads in parts, resumable and verified by checksum",
      "Plans sized for hobby projects up to large fleets",
    ],
  },
];
