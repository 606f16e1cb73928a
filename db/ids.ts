import { ObjectId } from "bson";

/** A new 24-character hex id (a MongoDB ObjectId), the id shape the product's API exposes. */
export function newId(): string {
  return new ObjectId().toHexString();
}

/** True when the text has the shape of an id made by newId. */
export function isId(text: string): boolean {
  return /^[0-9a-f]{24}$/.test(text);
}
