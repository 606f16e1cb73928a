ALTER TABLE "backups" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "verification" jsonb;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "anomaly" jsonb;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "anomaly_resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "restores" ADD COLUMN "kind" text DEFAULT 'restore' NOT NULL;--> statement-breakpoint
ALTER TABLE "restores" ADD COLUMN "drill" jsonb;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "retention_mode" text DEFAULT 'age' NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "gfs_daily" integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "gfs_weekly" integer DEFAULT 4 NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "gfs_monthly" integer DEFAULT 6 NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "retention_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "drill_frequency" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "next_drill_at" timestamp with time zone;