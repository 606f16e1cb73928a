ALTER TABLE "databases" ADD COLUMN "pitr_lag_seconds" integer;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "pitr_lag_reported_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "pitr_lag_alerted" boolean DEFAULT false NOT NULL;