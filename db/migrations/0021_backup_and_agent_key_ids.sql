ALTER TABLE "agents" ADD COLUMN "key_ids" jsonb;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "key_id" text;