ALTER TABLE "restores" ADD COLUMN "target_database" text;--> statement-breakpoint
ALTER TABLE "restores" ADD COLUMN "collections" jsonb;