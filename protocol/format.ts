const UNITS = ["Bytes", "KB", "MB", "GB", "TB"];

/**
 * A byte count in 1024 steps with units Bytes, KB, MB, GB, TB (spec section 9): the one unit
 * convention of the product. The web app, the e-mails and the agent's CLI all format with this.
 */
export function formatBytes(bytes: number, decimals = 2): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return "0 Bytes";
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), UNITS.length - 1);
  const value = bytes / 1024 ** exponent;
  return `${Number.parseFloat(value.toFixed(Math.max(0, decimals)))} ${UNITS[exponent]}`;
}
