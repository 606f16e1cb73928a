// The one place the test server's environment is read.

/** A real MongoDB to test against instead of the test server (MONGODB_TEST_URI), or null. */
export function readRealServerUri(): string | null {
  return process.env.MONGODB_TEST_URI?.trim() || null;
}
