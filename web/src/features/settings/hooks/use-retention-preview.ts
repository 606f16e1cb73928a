import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { answerOf } from "../../../lib/api-client";
import { type RetentionChoice, type RetentionPreview, retentionPreviewRequest } from "../api/settings-api";

/** Waits this long after the last change of the choice before asking again. */
export const PREVIEW_DEBOUNCE_MS = 300;

/** The preview of a retention choice, fetched again (debounced) whenever it changes; the previous one stays while loading. */
export function useRetentionPreview(choice: RetentionChoice) {
  const key = JSON.stringify(choice);
  const [asked, setAsked] = useState(key);
  useEffect(() => {
    const timer = setTimeout(() => setAsked(key), PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [key]);
  const query = useQuery({
    queryKey: ["settings", "retention-preview", asked],
    queryFn: () => answerOf(retentionPreviewRequest(JSON.parse(asked) as RetentionChoice)),
    placeholderData: keepPreviousData,
  });
  // A failed preview leaves the last one shown under the message.
  const shown = useRef<RetentionPreview | null>(null);
  if (query.data && !query.isPlaceholderData) shown.current = query.data;
  return {
    preview: query.data ?? shown.current,
    error: query.isError ? "The preview could not be loaded." : null,
    loading: key !== asked || query.isFetching,
  };
}
