// Finding backups (issue 44): the backups tab's filters and page live in the URL, so a filtered
// view (or one backup, ?backup=ID) is a link a teammate can open. Reading is forgiving: a value
// the list does not offer is dropped, not sent for a 400.

export const BACKUP_STATUSES = ["pending", "in-progress", "completed", "failed"] as const;
export type BackupStatusFilter = (typeof BACKUP_STATUSES)[number];
/** The list's page size: a page shorter than this is the last (the server counts nothing). */
export const BACKUPS_PER_PAGE = 100;

export type BackupFilters = {
  search: string;
  status: BackupStatusFilter | "";
  /** yyyy-mm-dd, UTC days; "" for none. */
  from: string;
  to: string;
  verified: "true" | "false" | "";
  pitrBase: "true" | "";
  page: number;
  /** The backup whose details are open, by id; "" for none. */
  backup: string;
};

export const NO_BACKUP_FILTERS: BackupFilters = { search: "", status: "", from: "", to: "", verified: "", pitrBase: "", page: 1, backup: "" };

const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));

export function readBackupFilters(search: string): BackupFilters {
  const params = new URLSearchParams(search);
  const get = (name: string) => params.get(name)?.trim() ?? "";
  const status = get("status");
  const verified = get("verified");
  const page = Number(get("page"));
  return {
    search: get("q").slice(0, 64),
    status: (BACKUP_STATUSES as readonly string[]).includes(status) ? (status as BackupStatusFilter) : "",
    from: isDay(get("from")) ? get("from") : "",
    to: isDay(get("to")) ? get("to") : "",
    verified: verified === "true" || verified === "false" ? verified : "",
    pitrBase: get("pitrBase") === "true" ? "true" : "",
    page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
    backup: /^[\w-]{1,64}$/.test(get("backup")) ? get("backup") : "",
  };
}

/** The URL's query for these filters ("" when none): only what differs from no filter. */
export function backupFiltersSearch(filters: BackupFilters): string {
  const params = new URLSearchParams();
  if (filters.search) params.set("q", filters.search);
  if (filters.status) params.set("status", filters.status);
  if (filters.from) params.set("from", filters.from);
  if (filters.to) params.set("to", filters.to);
  if (filters.verified) params.set("verified", filters.verified);
  if (filters.pitrBase) params.set("pitrBase", filters.pitrBase);
  if (filters.page > 1) params.set("page", String(filters.page));
  if (filters.backup) params.set("backup", filters.backup);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The list's API query for these filters (no page-size: the server's 100). A range the wrong way round is swapped rather than refused. */
export function backupListQuery(filters: BackupFilters) {
  const [from, to] = filters.from && filters.to && filters.from > filters.to ? [filters.to, filters.from] : [filters.from, filters.to];
  return {
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(filters.verified ? { verified: filters.verified } : {}),
    ...(filters.pitrBase ? { pitrBase: filters.pitrBase } : {}),
    ...(filters.page > 1 ? { page: filters.page } : {}),
  };
}

/** Whether any filter narrows the list (the empty list's text differs). */
export const isFiltered = (filters: BackupFilters) =>
  Boolean(filters.search || filters.status || filters.from || filters.to || filters.verified || filters.pitrBase);
