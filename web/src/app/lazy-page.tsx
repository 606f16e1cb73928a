import { type ComponentType, lazy } from "react";

// Pages whose code failed to load, each with how to start its load afresh.
const failedPages = new Set<() => void>();

/**
 * A page loaded on first use (its own chunk, React.lazy) whose failed load is not final. React.lazy
 * remembers a rejected import for ever, so a page opened while the server was unreachable would
 * stay broken until a full reload; here the failure is kept only until `retryFailedPages`.
 */
export function lazyPage(load: () => Promise<{ default: ComponentType }>): ComponentType {
  const create = () =>
    lazy(() =>
      load().catch((error: unknown) => {
        failedPages.add(() => (current = create()));
        throw error;
      }),
    );
  let current = create();
  return function LazyPage() {
    const Page = current;
    return <Page />;
  };
}

/**
 * Lets every page whose code failed to load try again on its next render. Called when the user
 * asks to try again, not at the failure itself: React renders a failed page more than once, and a
 * fresh import on each of those renders would retry for ever instead of showing the error.
 */
export function retryFailedPages() {
  for (const reset of failedPages) reset();
  failedPages.clear();
}
