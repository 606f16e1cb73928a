CREATE TABLE "pitr_slices" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"database_id" text NOT NULL,
	"agent_id" text,
	"chain" text NOT NULL,
	"sequence" integer NOT NULL,
	"start_ts" bigint NOT NULL,
	"end_ts" bigint NOT NULL,
	"first_ts" bigint,
	"last_ts" bigint,
	"entry_count" integer NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"reason" text NOT NULL,
	"rollover_from_ts" bigint,
	"storage_key" text NOT NULL,
	"stored" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "pitr_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "pitr_window_hours" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "pitr_slices" ADD CONSTRAINT "pitr_slices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pitr_slices" ADD CONSTRAINT "pitr_slices_database_id_databases_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."databases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pitr_slices" ADD CONSTRAINT "pitr_slices_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pitr_slices_chain_sequence_idx" ON "pitr_slices" USING btree ("database_id","chain","sequence");--> statement-breakpoint
CREATE INDEX "pitr_slices_database_start_idx" ON "pitr_slices" USING btree ("database_id","start_ts");