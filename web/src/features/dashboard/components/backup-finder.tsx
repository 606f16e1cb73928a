// The backups tab's filters and paging (issue 44). Every change writes the URL (the page itself
// reads it back), so the filtered view is a link; a change of filter goes back to page 1.
import { type FormEvent, useEffect, useState } from "react";
import { Button } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { Select } from "../../../components/ui/select";
import { BACKUP_STATUSES, type BackupFilters, BACKUPS_PER_PAGE, isFiltered, NO_BACKUP_FILTERS } from "../utils/backup-filters";
import { describeStatus } from "../utils/operation-status";

type FinderProps = { filters: BackupFilters; onChange: (filters: BackupFilters) => void };

const labelClasses = "block text-xs font-medium text-slate-700";

export function BackupFilterBar({ filters, onChange }: FinderProps) {
  const [search, setSearch] = useState(filters.search);
  useEffect(() => setSearch(filters.search), [filters.search]);
  const apply = (changes: Partial<BackupFilters>) => onChange({ ...filters, page: 1, backup: "", ...changes });
  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    apply({ search: search.trim() });
  };

  return (
    <form onSubmit={onSearch} aria-label="Find backups" className="grid grid-cols-2 gap-3 px-5 pb-4 md:grid-cols-3 xl:grid-cols-6" data-testid="backup-filters">
      <div className="col-span-2 md:col-span-1">
        <label htmlFor="backup-search" className={labelClasses}>
          Name contains
        </label>
        <input
          id="backup-search"
          type="search"
          value={search}
          maxLength={64}
          placeholder="Database name"
          onChange={(event) => setSearch(event.target.value)}
          onBlur={() => search.trim() !== filters.search && apply({ search: search.trim() })}
          className={`${inputClasses} mt-1`}
        />
      </div>
      <div>
        <label htmlFor="backup-status" className={labelClasses}>
          Status
        </label>
        <Select
          id="backup-status"
          className="mt-1"
          value={filters.status}
          onChange={(event) => apply({ status: event.target.value as BackupFilters["status"] })}
        >
          <option value="">All statuses</option>
          {BACKUP_STATUSES.map((status) => (
            <option key={status} value={status}>
              {describeStatus(status).label}
            </option>
          ))}
        </Select>
      </div>
      <div>
        <label htmlFor="backup-verified" className={labelClasses}>
          Verified
        </label>
        <Select
          id="backup-verified"
          className="mt-1"
          value={filters.verified}
          onChange={(event) => apply({ verified: event.target.value as BackupFilters["verified"] })}
        >
          <option value="">Any</option>
          <option value="true">Verified</option>
          <option value="false">Not verified</option>
        </Select>
      </div>
      <div>
        <label htmlFor="backup-from" className={labelClasses}>
          From (UTC)
        </label>
        <input id="backup-from" type="date" value={filters.from} onChange={(event) => apply({ from: event.target.value })} className={`${inputClasses} mt-1`} />
      </div>
      <div>
        <label htmlFor="backup-to" className={labelClasses}>
          To (UTC)
        </label>
        <input id="backup-to" type="date" value={filters.to} onChange={(event) => apply({ to: event.target.value })} className={`${inputClasses} mt-1`} />
      </div>
      <div className="col-span-2 flex flex-wrap items-end justify-between gap-2 md:col-span-1">
        <label className="flex items-center gap-2 py-2 text-sm text-slate-700">
          <input type="checkbox" checked={filters.pitrBase === "true"} onChange={(event) => apply({ pitrBase: event.target.checked ? "true" : "" })} />
          Point-in-time bases only
        </label>
        {isFiltered(filters) ? (
          <Button type="button" variant="ghost" size="sm" onClick={() => onChange({ ...NO_BACKUP_FILTERS })}>
            Clear filters
          </Button>
        ) : null}
      </div>
    </form>
  );
}

/** Previous / Next over pages of 100: a short page is the last (the server counts nothing). */
export function BackupPager({ filters, onChange, shown, loading }: FinderProps & { shown: number; loading: boolean }) {
  if (filters.page === 1 && shown < BACKUPS_PER_PAGE) return null;
  const first = (filters.page - 1) * BACKUPS_PER_PAGE + 1;
  return (
    <nav aria-label="Backup pages" className="flex items-center justify-between gap-4 border-t border-slate-200 px-5 py-3">
      <Button variant="outline" size="sm" disabled={filters.page <= 1 || loading} onClick={() => onChange({ ...filters, page: filters.page - 1 })}>
        Previous
      </Button>
      <p className="text-sm text-slate-600" aria-live="polite">
        Page {filters.page}
        {shown > 0 ? ` · backups ${first}–${first + shown - 1}` : ""}
      </p>
      <Button variant="outline" size="sm" disabled={shown < BACKUPS_PER_PAGE || loading} onClick={() => onChange({ ...filters, page: filters.page + 1 })}>
        Next
      </Button>
    </nav>
  );
}
