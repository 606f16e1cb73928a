ALTER TABLE "users" ADD COLUMN "agent_script_fetched_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "agent_downloaded_at" timestamp with time zone;