// The app's one query cache. Screens fetch on mount and refetch what a change invalidates, as
// they did by hand: no retries (a failure shows at once, in the screen's own words) and no
// refetch on window focus (the realtime channel and the screens' timers keep data fresh).
import { QueryClient } from "@tanstack/react-query";

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false },
    mutations: { retry: false },
  },
});
