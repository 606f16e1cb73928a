/** Why an update was not installed; the message is what the web app shows, the old version keeps running. */
export class UpdateError extends Error {
  override readonly name = "UpdateError";
}
