import { text, timestamp } from "drizzle-orm/pg-core";
import { newId } from "../ids";

/** Primary key column holding a 24-hex id generated on insert. */
export const idColumn = () => text("id").primaryKey().$defaultFn(newId);

/** Timestamp with time zone, read and written as a JS Date. */
export const timestampColumn = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const createdAtColumn = () => timestampColumn("created_at").notNull().defaultNow();
