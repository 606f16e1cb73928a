ALTER TABLE "databases" ADD COLUMN "pitr_lag_seconds" integer;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "pitr_lag_reported_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "pitr_lag_alerted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Deployments whose plans were seeded before pitr_window_hours existed got 0 (not offered) on every
-- plan, and no admin could change it (there was no editor). The seeded paid plans, known by their
-- seeded name and price and a window still at that default, get the window the seed gives them.
UPDATE "plans" SET "pitr_window_hours" = 24 WHERE "name" = 'Starter' AND "price" = 9 AND "pitr_window_hours" = 0;--> statement-breakpoint
UPDATE "plans" SET "pitr_window_hours" = 168 WHERE "name" = 'Pro' AND "price" = 29 AND "pitr_window_hours" = 0;--> statement-breakpoint
UPDATE "plans" SET "pitr_window_hours" = 720 WHERE "name" = 'Business' AND "price" = 99 AND "pitr_window_hours" = 0;
