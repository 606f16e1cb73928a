-- Each database's agent until now declares it: the agent that registered or added it holds it.
INSERT INTO "agent_databases" ("agent_id", "database_id")
SELECT "agent_id", "id" FROM "databases" WHERE "agent_id" IS NOT NULL
ON CONFLICT DO NOTHING;
