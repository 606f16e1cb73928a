// Reading command arguments. Bodies are deserialized with promoteValues: false (so stored options
// keep their exact BSON types), which means numbers arrive as Int32/Double/Long wrappers here.
import { isDocument, isNumeric, toNumber } from "./bson-order";
import { CommandError } from "./errors";

type Document = Record<string, unknown>;

/** Reads a truthy flag the way mongod does: true, or any non-zero number. */
export function readBoolean(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (isNumeric(value)) return toNumber(value) !== 0;
  return false;
}

/** Reads an optional integer field; throws TypeMismatch when it is present but not a number. */
export function readInteger(body: Document, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isNumeric(value)) throw new CommandError(14, `BSON field '${field}' is the wrong type '${typeof value}', expected types '[long, int, decimal, double]'`);
  return Math.trunc(toNumber(value));
}

/** Reads an optional document field; throws TypeMismatch when it is present but not a document. */
export function readDocument(body: Document, field: string): Document | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isDocument(value)) throw new CommandError(14, `BSON field '${field}' is the wrong type, expected type 'object'`);
  return value;
}

/** Reads the collection a command names in its first field; throws InvalidNamespace otherwise. */
export function readCollectionName(body: Document, commandName: string): string {
  const value = body[commandName];
  if (typeof value !== "string") {
    throw new CommandError(73, `collection name has invalid type ${value === null ? "null" : typeof value}`);
  }
  return value;
}
