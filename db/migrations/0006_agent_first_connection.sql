ALTER TABLE "agents" ADD COLUMN "first_connected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "outage_notice_at" timestamp with time zone;--> statement-breakpoint
-- Agents that had connected before this column existed keep their schedules.
UPDATE "agents" SET "first_connected_at" = COALESCE("last_seen", "created_at") WHERE "last_seen" IS NOT NULL;
