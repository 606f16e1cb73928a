import { defineConfig } from "drizzle-kit";

// Migrations are generated from db/schema by `npm run db:generate` and committed;
// the server applies them at start-up (db/migrate.ts), on PGlite and Postgres alike.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
