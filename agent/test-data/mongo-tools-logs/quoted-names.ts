// Collection names mongo-tools 100.16+ prints Go-quoted ("…" with escapes) or in backticks with a
// character that needs care: the names of the database behind the *-quoted-names.log files.
export const QUOTED_NAMES = ["plain", "back`tick", "new\nline", "tab\there", 'quote"and`tick', "del\u007f", "bom\ufeff", "ünï`cødé", "back\\slash\r"];
