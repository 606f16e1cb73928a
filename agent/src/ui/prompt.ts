// Questions on the terminal for setup and db add. Secrets (API key, connection strings) are read
// without echo, so they never sit in the terminal's scrollback, shell history or argv.
import type { Readable, Writable } from "node:stream";
import { CliError, EXIT } from "../cli-error.ts";

type RawCapable = Readable & { setRawMode?: (on: boolean) => unknown; isRaw?: boolean };

/** The terminal's input ended (Ctrl-D, a closed pipe) before a question was answered: nothing more can be asked. */
export class InputEndedError extends CliError {
  constructor() {
    super("setup: the input ended before the question was answered", EXIT.usage);
  }
}

export interface Prompter {
  /** Asks a question and returns the trimmed answer (echoed). */
  ask(question: string): Promise<string>;
  /** Asks for a secret without echoing it; returns the trimmed answer. */
  askSecret(question: string): Promise<string>;
}

/** Builds a prompter on a terminal's input and error output; throws nothing until asked. */
export function createPrompter(input: Readable, output: Writable): Prompter {
  const readAnswer = (question: string, hidden: boolean) =>
    new Promise<string>((resolve, reject) => {
      const tty = input as RawCapable;
      output.write(question);
      let answer = "";
      const wasRaw = tty.isRaw === true;
      tty.setRawMode?.(true);
      input.resume();
      const finish = (error?: Error) => {
        input.off("data", onData);
        input.off("end", onEnd);
        tty.setRawMode?.(wasRaw);
        input.pause();
        output.write("\n");
        if (error) reject(error);
        else resolve(answer.trim());
      };
      const onEnd = () => finish(new InputEndedError());
      const onData = (chunk: Buffer | string) => {
        for (const char of String(chunk)) {
          if (char === "\r" || char === "\n") return finish();
          if (char === "\u0003") return finish(new CliError("interrupted", EXIT.interrupted));
          if (char === "\u0004" && answer === "") return onEnd();
          if (char === "\u007f" || char === "\b") {
            if (answer.length > 0) {
              answer = answer.slice(0, -1);
              if (!hidden) output.write("\b \b");
            }
            continue;
          }
          if (char < " ") continue;
          answer += char;
          if (!hidden) output.write(char);
        }
      };
      input.on("data", onData);
      input.once("end", onEnd);
    });
  return {
    ask: (question) => readAnswer(question, false),
    askSecret: (question) => readAnswer(question, true),
  };
}
