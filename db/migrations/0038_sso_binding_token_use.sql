ALTER TABLE "users" ADD COLUMN "sso_organization_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "sso_link" text;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "last_used_ip" text;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "verified_domains" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "domain_verification_token" text;--> statement-breakpoint
-- Connections saved before domain proof get the token their TXT record must hold.
UPDATE "sso_connections" SET "domain_verification_token" = md5(random()::text || "id") WHERE "domain_verification_token" IS NULL;
