import { describe, expect, test } from "bun:test";
import { readErrorMessage, readErrorStatus, SERVER_UNREACHABLE_MESSAGE, ServerUnreachableError } from "./api-client";

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
