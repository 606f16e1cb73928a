// For a screen whose steps each send a different request and share one busy state and one place
// for the error (the two-factor card's steps, the admin's actions): the action runs as a
// mutation, so `busy` is the query client's pending state rather than a flag set by hand.
import { useMutation } from "@tanstack/react-query";

export function usePendingAction() {
  const { mutateAsync, isPending } = useMutation({ mutationFn: (action: () => Promise<void>) => action() });
  return { run: mutateAsync, busy: isPending };
}
