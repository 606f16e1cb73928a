/** A share in percent as every screen shows it: one decimal when there is one ('0.1%', '42.5%'), none otherwise ('0%', '100%'). */
export function formatPercent(percent: number): string {
  return `${Number.parseFloat(percent.toFixed(1))}%`;
}
