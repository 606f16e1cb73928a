ALTER TABLE "backup_parts" ADD COLUMN "stored" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Parts stored before this migration carried their SHA-256; an empty one marked a part still being received.
UPDATE "backup_parts" SET "stored" = ("sha256" <> '');