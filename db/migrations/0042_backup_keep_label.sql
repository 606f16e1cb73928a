ALTER TABLE "backups" ADD COLUMN "kept" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "kept_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "kept_by" text;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "label" text;