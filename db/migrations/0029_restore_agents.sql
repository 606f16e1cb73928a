ALTER TABLE "agents" ADD COLUMN "role" text DEFAULT 'backup' NOT NULL;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "verification_waiting_for" text;--> statement-breakpoint
ALTER TABLE "restores" ADD COLUMN "waiting_for" text;