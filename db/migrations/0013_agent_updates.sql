ALTER TABLE "agents" ADD COLUMN "update_status" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "update_message" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "update_version" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "update_at" timestamp with time zone;