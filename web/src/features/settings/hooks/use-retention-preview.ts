import { useEffect, useState } from "react";
import { type RetentionChoice, type RetentionPreview, retentionPreviewRequest } from "../api/settings-api";

/** Waits this long after the last change of the choice before asking again. */
export const PREVIEW_DEBOUNCE_MS = 300;

/** The preview of a retention choice, fetched again (debounced) whenever it changes; the previous one stays while loading. */
export function useRetentionPreview(choice: RetentionChoice) {
  const [preview, setPreview] = useState<RetentionPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const key = JSON.stringify(choice);
  useEffect(() => {
    let active = true;
    setLoading(true);
    const timer = setTimeout(() => {
      retentionPreviewRequest(JSON.parse(key) as RetentionChoice)
        .then(({ data, error: failure }) => {
          if (!active) return;
          if (failure || !data) throw failure ?? new Error("preview failed");
          setPreview(data);
          setError(null);
        })
        .catch(() => active && setError("The preview could not be loaded."))
        .finally(() => active && setLoading(false));
    }, PREVIEW_DEBOUNCE_MS);
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [key]);
  return { preview, error, loading };
}
