ALTER TABLE "agents" ADD COLUMN "setup_code_hash" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "setup_code_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "setup_code_approved_at" timestamp with time zone;