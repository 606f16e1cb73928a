// A change whose route takes no body (removing an owner) is confirmed through the session itself:
// POST /api/auth/reauthenticate answers a token stamped for 10 minutes, which replaces this one.
import type { Credentials } from "../../components/auth/reauthentication-dialog";
import { answerOf, api } from "../api-client";
import { startSession } from "./session";
import { sessionAtom, sessionStore } from "./session-store";

/** Stamps the session with the password (and code); empty credentials ("Confirm with SSO" done) leave it as it is. */
export async function stampSession(credentials: Credentials) {
  if (credentials.password === undefined) return;
  const stamped = await answerOf(api.auth.reauthenticate.post({ password: credentials.password, code: credentials.code }));
  const session = sessionStore.get(sessionAtom);
  if (session) startSession(stamped.token, session.user);
}
