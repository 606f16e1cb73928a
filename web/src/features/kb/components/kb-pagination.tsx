import { Button } from "../../../components/ui/button";

/** Previous, page numbers, Next. */
export function KbPagination({ page, pages, onPage }: { page: number; pages: number; onPage: (page: number) => void }) {
  if (pages <= 1) return null;
  return (
    <nav aria-label="Pagination" className="mt-8 flex flex-wrap items-center justify-center gap-1">
      <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      {Array.from({ length: pages }, (_, i) => i + 1).map((number) => (
        <Button
          key={number}
          variant={number === page ? "default" : "ghost"}
          size="sm"
          aria-current={number === page ? "page" : undefined}
          aria-label={`Page ${number}`}
          onClick={() => onPage(number)}
        >
          {number}
        </Button>
      ))}
      <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </nav>
  );
}
