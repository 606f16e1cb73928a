/** The server refused a call; `status` and `code` say why (e.g. 401 for a revoked API key). */
export class ServerRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "ServerRefusedError";
  }

  /** True for refusals that retrying cannot fix (bad credentials, a backup that is no longer running, limits). */
  get isFinal(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== 408 && this.status !== 429;
  }
}

/** The server could not be reached (network error, timeout, 5xx) after retrying. */
export class ServerUnreachableError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "ServerUnreachableError";
  }
}
