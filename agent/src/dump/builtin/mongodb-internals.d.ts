// The driver's OP_MSG document sequence (section kind 1), which sends documents as the exact
// bytes it is given. Not public API; raw-insert.ts checks that it still has this shape.
declare module "mongodb/lib/cmap/commands.js" {
  export class DocumentSequence {
    constructor(field: string);
    push(document: unknown, buffer: Uint8Array): number;
  }
}
