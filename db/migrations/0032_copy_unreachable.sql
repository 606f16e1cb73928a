ALTER TABLE "backup_copies" ADD COLUMN "unreachable_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "backup_copies" ADD COLUMN "unreachable_alerted_at" timestamp with time zone;