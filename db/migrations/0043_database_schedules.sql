ALTER TABLE "databases" ADD COLUMN "schedule_frequency_hours" integer;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "schedule_time_of_day" integer;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "schedule_window_start" integer;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "schedule_window_end" integer;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "missed_backup_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "missed_backup_reason" text;