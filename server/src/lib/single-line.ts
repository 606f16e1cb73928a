// Names (a person's, an organization's) are single-line text: they are put into e-mail subjects
// and bodies sent to any address (an invitation), where a line break would let whoever chose the
// name write lines of their own. Control characters, line and paragraph separators are refused
// at input; what is stored already is flattened and quoted when a mail shows it.
import { badRequest } from "./errors";

// C0 and C1 controls (CR, LF, TAB, ESC…), DEL, U+2028 and U+2029.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** 400 naming the field when `text` holds a line break or another control character. */
export function refuseMultiLine(text: string | undefined, field: string): void {
  if (text !== undefined && CONTROL.test(text)) {
    throw badRequest(`${field} must be one line of text, without line breaks or control characters.`);
  }
}

/** A name as an e-mail shows it: on one line, in quotation marks, so it reads as a name and not as the mail's own words. */
export const quotedName = (name: string) => `“${name.replace(CONTROLS, " ").trim()}”`;
