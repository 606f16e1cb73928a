// The typed API client: Eden treaty over the server's own `App` type, so request and response
// shapes come from the server code and are never written by hand here.
import { treaty } from "@elysiajs/eden";
import type { App } from "@server/app";

type AuthHooks = {
  /** The signed-in user's token, sent as a bearer token on every call. */
  getToken: () => string | null;
  /** Told of every 401/403 answer to a call that carried a token (the session may be over). */
  onAuthFailure: (status: number, body: unknown) => void;
  /** The organization chosen in the switcher, sent as X-Organization-Id; null for the personal one. */
  getOrganizationId: () => string | null;
};

// Set by the auth feature at start-up; shared code cannot import features (imports flow one way).
let authHooks: AuthHooks = { getToken: () => null, onAuthFailure: () => {}, getOrganizationId: () => null };

/** Connects the client to the session: where tokens come from and who hears of auth failures. */
export function configureApiAuth(hooks: AuthHooks) {
  authHooks = hooks;
}

/** What the user reads when a call never got an answer (server down or restarting, network lost). */
export const SERVER_UNREACHABLE_MESSAGE = "Could not reach DBVault. Check your connection and try again.";

/**
 * A call that got no answer at all. Eden turns whatever the fetcher throws into an error answer
 * whose value is the thrown error, so without this the browser's own words ("Failed to fetch",
 * "NetworkError when attempting to fetch resource.") reached the user as if the server said them.
 */
export class ServerUnreachableError extends Error {
  constructor() {
    super(SERVER_UNREACHABLE_MESSAGE);
    this.name = "ServerUnreachableError";
  }
}

async function fetchWithAuth(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers);
  const token = authHooks.getToken();
  if (token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
  const organizationId = token ? authHooks.getOrganizationId() : null;
  if (organizationId && !headers.has("x-organization-id")) headers.set("x-organization-id", organizationId);
  let response: Response;
  try {
    response = await fetch(input, { ...init, headers });
  } catch (error) {
    // fetch rejects with a TypeError when no answer came; an abort we asked for stays itself.
    throw error instanceof TypeError ? new ServerUnreachableError() : error;
  }
  if (token && (response.status === 401 || response.status === 403)) {
    const body = await response
      .clone()
      .json()
      .catch(() => null);
    authHooks.onAuthFailure(response.status, body);
  }
  return response;
}

const origin = typeof window === "undefined" ? "http://localhost" : window.location.origin;

// parseDate off: the server's types say dates are ISO strings, so they stay strings at run time.
export const api = treaty<App>(origin, { fetcher: fetchWithAuth as typeof fetch, parseDate: false }).api;

/**
 * The `message` of an API error answer ({message, code}), if it has one; for a call that got no
 * answer, SERVER_UNREACHABLE_MESSAGE. Other errors of the browser or of Eden give null, so the
 * caller's fallback text shows instead of a raw technical one.
 */
export function readErrorMessage(error: unknown): string | null {
  const value = (error as { value?: unknown } | null)?.value;
  if (value instanceof ServerUnreachableError) return value.message;
  if (value instanceof Error) return null;
  if (value && typeof value === "object" && "message" in value && typeof value.message === "string" && value.message) {
    return value.message;
  }
  return null;
}

/** The HTTP status of an API error answer; null for a call that got no answer. */
export function readErrorStatus(error: unknown): number | null {
  if ((error as { value?: unknown } | null)?.value instanceof ServerUnreachableError) return null;
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : null;
}

/** What a call answers when it succeeds, as the server types it (the one answer type of the app). */
export type Answer<T extends (...args: never[]) => Promise<{ data: unknown }>> = NonNullable<Awaited<ReturnType<T>>["data"]>;

/**
 * A call that did not succeed, thrown for the query cache: `value` and `status` as Eden gives
 * them, so readErrorMessage and readErrorStatus read it like any error answer.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number | null,
    readonly value: unknown,
  ) {
    super(readErrorMessage({ value }) ?? "The request failed");
    this.name = "ApiError";
  }
}

/** The data of a call's answer, or an ApiError: what query functions and mutations return. */
export async function answerOf<T>(call: Promise<{ data: T; error: unknown; status?: number }>): Promise<NonNullable<T>> {
  let answer: { data: T; error: unknown; status?: number };
  try {
    answer = await call;
  } catch (error) {
    throw new ApiError(null, error);
  }
  if (answer.error || answer.data === null || answer.data === undefined) {
    const { error } = answer;
    throw error instanceof ApiError
      ? error
      : new ApiError(readErrorStatus(error) ?? answer.status ?? null, (error as { value?: unknown } | null)?.value ?? error);
  }
  return answer.data as NonNullable<T>;
}

/** answerOf for a read whose failure the screen does not show: the failure is only logged (spec 8). */
export async function answerOrLog<T>(message: string, call: Promise<{ data: T; error: unknown; status?: number }>): Promise<NonNullable<T>> {
  try {
    return await answerOf(call);
  } catch (error) {
    console.error(message);
    throw error;
  }
}
