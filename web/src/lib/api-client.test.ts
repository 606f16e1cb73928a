import { describe, expect, test } from "bun:test";
import { ApiError, answerOf, readErrorMessage, readErrorStatus, SERVER_UNREACHABLE_MESSAGE, ServerUnreachableError } from "./api-client";

describe("reading an error answer", () => {
  test("the server's message is shown as it is", () => {
    expect(readErrorMessage({ status: 409, value: { message: "The agent is offline", code: "AGENT_OFFLINE" } })).toBe("The agent is offline");
    expect(readErrorStatus({ status: 409, value: { message: "x" } })).toBe(409);
  });

  test("a call that got no answer says the server could not be reached, with no HTTP status", () => {
    const error = { status: 503, value: new ServerUnreachableError() };
    expect(readErrorMessage(error)).toBe(SERVER_UNREACHABLE_MESSAGE);
    expect(readErrorStatus(error)).toBeNull();
  });

  test("other errors of the browser give no message, so the caller's own text shows", () => {
    expect(readErrorMessage({ status: 422, value: new SyntaxError("Unexpected token < in JSON") })).toBeNull();
    expect(readErrorMessage({ status: 502, value: "<html>Bad Gateway</html>" })).toBeNull();
  });
});

// Eden answers { data, error } with error = { status, value }; the query cache needs a thrown error
// instead, which the screens read with the same two functions as before.
describe("an answer for the query cache", () => {
  test("the data of a successful answer", async () => {
    expect(await answerOf(Promise.resolve({ data: { ok: true }, error: null }))).toEqual({ ok: true });
  });

  test("an error answer throws an ApiError with the server's status and message", async () => {
    const thrown = await answerOf(Promise.resolve({ data: null, error: { status: 404, value: { message: "Article not found", code: "NOT_FOUND" } } })).catch(
      (error) => error,
    );
    expect(thrown).toBeInstanceOf(ApiError);
    expect(readErrorStatus(thrown)).toBe(404);
    expect(readErrorMessage(thrown)).toBe("Article not found");
  });

  test("no answer at all reads as the server being unreachable", async () => {
    const thrown = await answerOf(Promise.resolve({ data: null, error: { status: 503, value: new ServerUnreachableError() } })).catch((error) => error);
    expect(readErrorStatus(thrown)).toBeNull();
    expect(readErrorMessage(thrown)).toBe(SERVER_UNREACHABLE_MESSAGE);
  });

  test("a call that threw gives no status and no message of the browser's own", async () => {
    const thrown = await answerOf(Promise.reject(new TypeError("Failed to fetch"))).catch((error) => error);
    expect(thrown).toBeInstanceOf(ApiError);
    expect(readErrorStatus(thrown)).toBeNull();
    expect(readErrorMessage(thrown)).toBeNull();
  });
});
