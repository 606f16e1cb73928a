CREATE TABLE "agent_databases" (
	"agent_id" text NOT NULL,
	"database_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_databases_agent_id_database_id_pk" PRIMARY KEY("agent_id","database_id")
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "agent_script_fetched_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "agent_downloaded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agent_databases" ADD CONSTRAINT "agent_databases_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_databases" ADD CONSTRAINT "agent_databases_database_id_databases_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."databases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_databases_database_idx" ON "agent_databases" USING btree ("database_id");