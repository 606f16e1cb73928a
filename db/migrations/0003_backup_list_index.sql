DROP INDEX "backups_user_created_idx";--> statement-breakpoint
CREATE INDEX "backups_user_created_id_idx" ON "backups" USING btree ("user_id","created_at","id");