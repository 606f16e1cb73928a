import { useQuery } from "@tanstack/react-query";
import { Alert } from "../../../components/ui/alert";
import { type StorageReplicaStatus, storageReplicaRequest } from "../api/admin-api";

type Side = NonNullable<StorageReplicaStatus["replica"]>["primary"];

/** One line per side of STORAGE_REPLICA_URL that is down, missed writes or lacks objects. */
function sideProblem(name: string, side: Side): string | null {
  const parts: string[] = [];
  if (!side.ok) parts.push(`does not answer (${side.problem ?? "unknown error"})`);
  if (side.missingObjects > 0) parts.push(`lacks ${side.missingObjects} object${side.missingObjects === 1 ? "" : "s"}`);
  if (side.failures > 0) parts.push(`missed ${side.failures} write${side.failures === 1 ? "" : "s"} since this server started`);
  return parts.length > 0 ? `The ${name} storage ${parts.join(", ")}.` : null;
}

/**
 * Warns the admin when one side of the replicated backup storage is down or behind; nothing when
 * there is no replica or both sides are whole. Backups go on while either side works.
 */
export function StorageReplicaAlert() {
  const { data } = useQuery({
    queryKey: ["admin", "stats", "storage"],
    queryFn: async () => (await storageReplicaRequest()).data ?? { replica: null },
    refetchInterval: 60_000,
  });
  const replica = data?.replica;
  if (!replica) return null;
  const problems = [sideProblem("primary", replica.primary), sideProblem("replica", replica.replica)].filter((line) => line !== null);
  if (problems.length === 0) return null;
  return (
    <Alert tone="warning" title="Backup storage replica needs attention" className="mt-6">
      {problems.map((line) => (
        <p key={line}>{line}</p>
      ))}
      <p>Backups continue while either storage works; the hourly repair pass copies what one side lacks once both answer.</p>
    </Alert>
  );
}
