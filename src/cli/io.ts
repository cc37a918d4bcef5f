/** What a command may touch of the outside world, passed in so tests can run commands in-process. */
export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT or SIGTERM; its reason is the signal's name. */
  readonly signal: AbortSignal;
  /** stderr is a terminal: a progress bar and readable logs instead of JSON lines. */
  readonly stderrIsTTY: boolean;
}

export type Command = (args: readonly string[], io: CommandIo) => Promise<number>;
