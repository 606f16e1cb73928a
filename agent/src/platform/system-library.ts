// Native code the host already has, through bun:ffi: the agent ships as one executable and
// carries no native libraries of its own, so where a system library does a job many times
// faster than JavaScript (CRC-64 in liblzma, zstd with a kept context in libzstd) it is used
// when present and checked, and the JavaScript or node:zlib path runs everywhere else.

/**
 * `DBVAULT_SYSTEM_LIBRARIES=off` keeps every job on the agent's own code: for a host whose
 * libraries its owner does not want loaded into the process that holds the master key.
 */
export const SYSTEM_LIBRARIES_SWITCH = "DBVAULT_SYSTEM_LIBRARIES";

/** Library file names to try, per platform, in order. */
export type LibraryNames = Partial<Record<NodeJS.Platform, readonly string[]>>;

/**
 * Returns a loader that, on its first call, gives what `open` makes of the first of this
 * platform's `names` that opens (dlopen and any checks inside `open`; a throw or null moves on to
 * the next name), or null when none does, and the same answer on every later call (per thread:
 * each worker loads its own). The loader never throws.
 */
export function systemLibraryLoader<T>(names: LibraryNames, open: (name: string) => T | null): () => T | null {
  let loaded: T | null | undefined;
  return () => {
    if (loaded !== undefined) return loaded;
    loaded = null;
    if (process.env[SYSTEM_LIBRARIES_SWITCH] === "off") return loaded;
    for (const name of names[process.platform] ?? []) {
      try {
        loaded = open(name);
        if (loaded) break;
      } catch {
        // Not there, or not loadable here: try the next name.
      }
    }
    return loaded;
  };
}
