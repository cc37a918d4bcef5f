/**
 * Progress while a run works: a bar on a terminal (steps done of total, credits spent of planned,
 * video jobs waiting, time left), and a plain line every few seconds otherwise (cron mail, CI).
 */
import { createRequire } from 'node:module';
import type { SingleBar } from 'cli-progress';
import type { Logger } from 'pino';

// Required only for a bar: a run without a terminal (cron, CI, the library) never loads it.
const require = createRequire(import.meta.url);

export const LINE_INTERVAL_MS = 10_000;

export interface ProgressState {
  readonly settled: number;
  readonly total: number;
  readonly creditsUsed: number;
  readonly creditsPlanned: number;
  readonly videosWaiting: number;
}

export class Progress {
  readonly #bar: SingleBar | undefined;
  readonly #logger: Logger;
  #lastLine = 0;

  constructor(mode: 'bar' | 'lines' | 'off', total: number, logger: Logger, stream?: NodeJS.WritableStream) {
    this.#logger = logger;
    if (mode === 'bar') {
      const { Presets, SingleBar } = require('cli-progress') as typeof import('cli-progress');
      this.#bar = new SingleBar(
        {
          stream: stream ?? process.stderr,
          format:
            '{bar} {value}/{total} steps | credits {credits}/{planned} | videos waiting {videos} | ETA {eta_formatted}',
          hideCursor: true,
          etaBuffer: 50,
        },
        Presets.shades_classic,
      );
      this.#bar.start(total, 0, { credits: 0, planned: 0, videos: 0 });
    }
    this.#lastLine = mode === 'lines' ? Date.now() : Number.POSITIVE_INFINITY;
  }

  update(state: ProgressState): void {
    this.#bar?.update(state.settled, {
      credits: state.creditsUsed,
      planned: state.creditsPlanned,
      videos: state.videosWaiting,
    });
    if (Date.now() - this.#lastLine >= LINE_INTERVAL_MS) {
      this.#lastLine = Date.now();
      this.#logger.info(
        { progress: state },
        `${state.settled}/${state.total} steps, ${state.creditsUsed}/${state.creditsPlanned} credits`,
      );
    }
  }

  stop(): void {
    this.#bar?.stop();
  }
}
