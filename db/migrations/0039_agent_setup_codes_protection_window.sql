ALTER TABLE "agents" ADD COLUMN "setup_code_hash" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "setup_code_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "setup_code_approved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "backup_protections" ADD COLUMN "pitr_window_hours" integer;--> statement-breakpoint
-- Organizations protected already lock in their plan's window now (the default plan's without one).
UPDATE "backup_protections" SET "pitr_window_hours" = COALESCE(
  (SELECT p."pitr_window_hours" FROM "organizations" o JOIN "plans" p ON p."id" = o."plan_id" WHERE o."id" = "backup_protections"."organization_id"),
  (SELECT p."pitr_window_hours" FROM "plans" p WHERE p."price" = 0 ORDER BY p."sort_order" LIMIT 1),
  0
);
