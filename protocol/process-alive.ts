/**
 * Whether a process with this id exists on this machine: used to tell a file a killed process
 * left behind (a lock, a temporary copy) from one still in use. EPERM means it exists, as another
 * user's process.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
