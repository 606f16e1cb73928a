ALTER TABLE "users" ADD COLUMN "sso_organization_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "sso_link" text;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "last_used_ip" text;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "verified_domains" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "domain_verification_token" text;