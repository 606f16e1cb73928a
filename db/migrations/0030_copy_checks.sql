ALTER TABLE "backup_copies" ADD COLUMN "etag" text;--> statement-breakpoint
ALTER TABLE "backup_copies" ADD COLUMN "checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "backup_copies" ADD COLUMN "locked_until" timestamp with time zone;