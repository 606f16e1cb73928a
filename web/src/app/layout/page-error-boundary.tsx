import { Component, type ReactNode } from "react";
import { Button } from "../../components/ui/button";

/** How browsers word a page chunk that could not be fetched (Chromium, Safari, Firefox). */
const CHUNK_LOAD_FAILURE = /dynamically imported module|Importing a module script failed|error loading dynamically imported module/i;

/** Whether a render error is a page's code that did not arrive (server unreachable, or redeployed). */
export function isChunkLoadFailure(error: unknown): boolean {
  return error instanceof Error && CHUNK_LOAD_FAILURE.test(error.message);
}

/** `resetKey`: the page's location; a new one clears the error (the user moved on). `onRetry`: run before 'Try again' renders the page again. */
type Props = { resetKey: string; onRetry?: () => void; children: ReactNode };
type State = { error: unknown; resetKey: string };

/**
 * Catches what a page throws while rendering, including a page whose code could not be loaded,
 * and shows what happened with a way forward. Without it React unmounts the whole app and the
 * user is left with a blank window, even after the server is back.
 */
export class PageErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override componentDidCatch(error: unknown) {
    console.error("page failed to render", error);
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    const unreachable = isChunkLoadFailure(this.state.error);
    return (
      <div role="alert" className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{unreachable ? "This page could not be loaded" : "Something went wrong"}</h1>
        <p className="mt-4 text-slate-600">
          {unreachable
            ? "DBVault could not be reached. Check your connection, then try again."
            : "This page ran into an unexpected problem. Try again, or reload the page if it happens again."}
        </p>
        <div className="mt-8 flex gap-3">
          <Button
            onClick={() => {
              this.props.onRetry?.();
              this.setState({ error: null });
            }}
          >
            Try again
          </Button>
          <Button variant="outline" onClick={() => window.location.reload()}>
            Reload page
          </Button>
        </div>
      </div>
    );
  }
}
