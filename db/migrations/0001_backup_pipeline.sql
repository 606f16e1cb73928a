CREATE TABLE "backup_parts" (
	"backup_id" text NOT NULL,
	"part_number" integer NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "backup_parts_backup_id_part_number_pk" PRIMARY KEY("backup_id","part_number")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "token_hash" text;--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "last_activity_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "next_backup_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "restores" ADD COLUMN "last_activity_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "restores" ADD COLUMN "stats" jsonb;--> statement-breakpoint
ALTER TABLE "backup_parts" ADD CONSTRAINT "backup_parts_backup_id_backups_id_fk" FOREIGN KEY ("backup_id") REFERENCES "public"."backups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "backups_database_created_idx" ON "backups" USING btree ("database_id","created_at");--> statement-breakpoint
CREATE INDEX "databases_next_backup_idx" ON "databases" USING btree ("next_backup_at");