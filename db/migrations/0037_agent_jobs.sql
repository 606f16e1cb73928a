CREATE TABLE "agent_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text,
	"key_id" text,
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"command" jsonb NOT NULL,
	"sealed" text,
	"state" text DEFAULT 'queued' NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "agent_jobs" ADD CONSTRAINT "agent_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_jobs" ADD CONSTRAINT "agent_jobs_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_jobs_agent_state_idx" ON "agent_jobs" USING btree ("agent_id","state");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_jobs_kind_subject_idx" ON "agent_jobs" USING btree ("kind","subject_id");