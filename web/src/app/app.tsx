import { QueryClientProvider } from "@tanstack/react-query";
import { Provider } from "jotai";
import { SessionManager } from "../features/auth/components/session-manager";
import { sessionStore } from "../lib/auth/session-store";
import { queryClient } from "../lib/query-client";
import { AppShell } from "./layout/app-shell";
import { AppRouter } from "./router";

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <Provider store={sessionStore}>
        <SessionManager />
        <AppShell>
          <AppRouter />
        </AppShell>
      </Provider>
    </QueryClientProvider>
  );
}
