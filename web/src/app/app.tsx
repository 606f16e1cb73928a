import { Provider } from "jotai";
import { SessionManager } from "../features/auth/components/session-manager";
import { sessionStore } from "../features/auth/stores/session-store";
import { AppShell } from "./layout/app-shell";
import { AppRouter } from "./router";

export function App() {
  return (
    <Provider store={sessionStore}>
      <SessionManager />
      <AppShell>
        <AppRouter />
      </AppShell>
    </Provider>
  );
}
