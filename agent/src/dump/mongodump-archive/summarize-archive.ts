import type { Document } from "bson";
import { splitNamespace } from "./format.ts";
import { readArchiveStructure, type ReadArchiveOptions } from "./read-archive.ts";
import type { ArchiveHeader, ArchiveSource, CollectionMetadata } from "./types.ts";

/** What `verify` shows for one namespace that carried data (or an empty segment) in the archive. */
export interface NamespaceSummary {
  namespace: string;
  db: string;
  collection: string;
  /** The prelude entry describing it (for time-series buckets, the entry of the time-series collection). */
  metadata: CollectionMetadata | undefined;
  indexes: Document[];
  documentCount: number;
  documentBytes: number;
  /** The CRC stored in the EOF header (int64 bit pattern), verified against the documents. */
  crc: bigint;
}

export interface ArchiveSummary {
  header: ArchiveHeader;
  /** Every prelude entry, in prelude order. */
  collections: CollectionMetadata[];
  /** Every namespace that ended, in the order their end markers appear. */
  namespaces: NamespaceSummary[];
  totalDocuments: number;
  totalDocumentBytes: number;
  archiveBytes: number;
}

/**
 * Reads a whole archive, verifying every CRC, and returns its namespaces with document counts,
 * metadata and indexes. Keeps no document in memory. Throws MongodumpArchiveError when the
 * archive is damaged, exactly as `readMongodumpArchive` would.
 */
export async function summarizeArchive(
  source: ArchiveSource,
  options: ReadArchiveOptions & { onDocument?: (namespace: string, bytes: Uint8Array) => void } = {},
): Promise<ArchiveSummary> {
  let header: ArchiveHeader | undefined;
  const collections: CollectionMetadata[] = [];
  const namespaces: NamespaceSummary[] = [];
  let archiveBytes = 0;
  for await (const event of readArchiveStructure(source, options)) {
    switch (event.kind) {
      case "header":
        header = event.header;
        break;
      case "collection":
        collections.push(event.metadata);
        break;
      case "namespace-end": {
        const { db, collection } = splitNamespace(event.namespace);
        const metadata = collections.find(
          (entry) =>
            entry.namespace === event.namespace || (entry.type === "timeseries" && entry.db === db && `system.buckets.${entry.collection}` === collection),
        );
        namespaces.push({
          namespace: event.namespace,
          db,
          collection,
          metadata,
          indexes: metadata?.indexes ?? [],
          documentCount: event.documentCount,
          documentBytes: event.documentBytes,
          crc: event.crc,
        });
        break;
      }
      case "end":
        archiveBytes = event.archiveBytes;
        break;
      case "document":
        // Only the namespaces of `documentsOf` have document events here.
        options.onDocument?.(event.namespace, event.bytes);
        break;
    }
  }
  return {
    header: header!,
    collections,
    namespaces,
    totalDocuments: namespaces.reduce((sum, entry) => sum + entry.documentCount, 0),
    totalDocumentBytes: namespaces.reduce((sum, entry) => sum + entry.documentBytes, 0),
    archiveBytes,
  };
}
