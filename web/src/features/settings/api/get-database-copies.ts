// Settings → Databases → Copies: one database's backup copies in the user's own buckets.
import { useQuery } from "@tanstack/react-query";
import { type Answer, answerOf, api } from "../../../lib/api-client";

export const databaseCopiesRequest = (databaseName: string) => api.backups.copies.get({ query: { databaseName } });
export type DatabaseCopies = Answer<typeof databaseCopiesRequest>;
export type DatabaseCopy = DatabaseCopies["copies"][number];

/** Fetched while the dialog is open (`databaseName` set). */
export function useDatabaseCopies(databaseName: string | null) {
  return useQuery({
    queryKey: ["database-copies", databaseName],
    queryFn: () => answerOf(databaseCopiesRequest(databaseName!)),
    enabled: databaseName !== null,
  });
}
