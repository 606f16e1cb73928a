CREATE TABLE "removed_agents" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"removed_at" timestamp with time zone DEFAULT now() NOT NULL
);
