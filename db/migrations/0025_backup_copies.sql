CREATE TABLE "backup_copies" (
	"backup_id" text NOT NULL,
	"destination" text NOT NULL,
	"key" text NOT NULL,
	"status" text NOT NULL,
	"size" bigint,
	"sha256" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "backup_copies_backup_id_destination_pk" PRIMARY KEY("backup_id","destination")
);
--> statement-breakpoint
ALTER TABLE "backup_copies" ADD CONSTRAINT "backup_copies_backup_id_backups_id_fk" FOREIGN KEY ("backup_id") REFERENCES "public"."backups"("id") ON DELETE cascade ON UPDATE no action;