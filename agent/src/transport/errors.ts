/** The server refused a call; `status` and `code` say why (e.g. 401 for a revoked API key). */
export class ServerRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    /** The rest of the server's JSON answer (e.g. a backup's `status` beside a 409). */
    readonly answer: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ServerRefusedError";
  }

  /** True for refusals that retrying cannot fix (bad credentials, a backup that is no longer running, limits). */
  get isFinal(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== 408 && this.status !== 429;
  }
}

/**
 * A failed fetch in plain words ("nothing is listening at host:port"), without the runtime's own
 * hints (Bun adds "Is the computer able to access the url?" or a `verbose: true` tip); never throws.
 */
export function describeFetchFailure(error: unknown, url: string): string {
  const { host, hostname } = new URL(url);
  const { code, name, message } = (error ?? {}) as { code?: string; name?: string; message?: string };
  if (name === "TimeoutError" || code === "ETIMEDOUT") return `${host} did not answer in time`;
  if (code === "ECONNREFUSED") return `nothing is listening at ${host} (connection refused): check the address and port`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host name ${hostname} could not be found`;
  if (code === "ECONNRESET" || code === "EPIPE") return `the connection to ${host} was cut`;
  if ((code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) || /certificate/i.test(message ?? "")) {
    return `the TLS connection to ${host} failed: its certificate is not trusted on this machine (${code ?? "certificate error"})`;
  }
  const firstSentence = (message ?? "the request failed").split(/(?<=\.)\s|\n/)[0]!.replace(/\s*Is the computer able to access the url\?.*$/, "");
  return `${host}: ${firstSentence}`;
}

/** The server could not be reached (network error, timeout, 5xx) after retrying. */
export class ServerUnreachableError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "ServerUnreachableError";
  }
}
