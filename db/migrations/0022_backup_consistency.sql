ALTER TABLE "backups" ADD COLUMN "consistency" text;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "consistent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "consistent_at_t" bigint;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "consistent_at_i" bigint;