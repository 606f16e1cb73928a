-- What users owned now belongs to their organization: a personal organization shares its
-- founder's id (0028), so each owner column is renamed and keeps its values.
ALTER TABLE "agents" DROP CONSTRAINT "agents_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "agents" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER INDEX "agents_user_idx" RENAME TO "agents_organization_idx";
--> statement-breakpoint
ALTER TABLE "audit_logs" DROP CONSTRAINT "audit_logs_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "audit_logs" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD CONSTRAINT "audit_logs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER INDEX "audit_logs_user_time_idx" RENAME TO "audit_logs_organization_time_idx";
--> statement-breakpoint
ALTER TABLE "backups" DROP CONSTRAINT "backups_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "backups" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "backups" ADD CONSTRAINT "backups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER INDEX "backups_user_created_id_idx" RENAME TO "backups_organization_created_id_idx";
--> statement-breakpoint
ALTER TABLE "databases" DROP CONSTRAINT "databases_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "databases" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "databases" ADD CONSTRAINT "databases_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER INDEX "databases_user_name_idx" RENAME TO "databases_organization_name_idx";
--> statement-breakpoint
ALTER TABLE "restores" DROP CONSTRAINT "restores_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "restores" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "restores" ADD CONSTRAINT "restores_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER INDEX "restores_user_created_idx" RENAME TO "restores_organization_created_idx";
--> statement-breakpoint
ALTER TABLE "settings" DROP CONSTRAINT "settings_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "settings" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "settings" ADD CONSTRAINT "settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "webhooks" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER INDEX "webhooks_user_idx" RENAME TO "webhooks_organization_idx";
--> statement-breakpoint
ALTER TABLE "backup_protections" DROP CONSTRAINT "backup_protections_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "backup_protections" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "backup_protections" ADD CONSTRAINT "backup_protections_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "pitr_slices" DROP CONSTRAINT "pitr_slices_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "pitr_slices" RENAME COLUMN "user_id" TO "organization_id";
--> statement-breakpoint
ALTER TABLE "pitr_slices" ADD CONSTRAINT "pitr_slices_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "api_key_ciphertext" text;
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "api_key_hash" text;
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "plan_id" text;
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "storage_used" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE "organizations" SET "api_key_ciphertext" = "users"."api_key_ciphertext", "api_key_hash" = "users"."api_key_hash", "plan_id" = "users"."plan_id", "storage_used" = "users"."storage_used" FROM "users" WHERE "users"."id" = "organizations"."id";
--> statement-breakpoint
ALTER TABLE "organizations" ALTER COLUMN "api_key_ciphertext" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "organizations" ALTER COLUMN "api_key_hash" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_api_key_hash_unique" UNIQUE("api_key_hash");
--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "organizations_plan_idx" ON "organizations" USING btree ("plan_id");
--> statement-breakpoint
DROP INDEX "users_plan_idx";
--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_plan_id_plans_id_fk";
--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_api_key_hash_unique";
--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "api_key_ciphertext";
--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "api_key_hash";
--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "plan_id";
--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "storage_used";
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "api_tokens" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "api_tokens" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "actor_id" text;
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "actor_name" text;
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "actor_email" text;
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "actor_role" text;
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD CONSTRAINT "audit_logs_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
