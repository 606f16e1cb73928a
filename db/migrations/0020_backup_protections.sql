CREATE TABLE "backup_protections" (
	"user_id" text PRIMARY KEY NOT NULL,
	"enabled_at" timestamp with time zone NOT NULL,
	"off_requested_at" timestamp with time zone,
	"off_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "backup_protections" ADD CONSTRAINT "backup_protections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;