/**
 * Opening a saved state at start-up, under its lock: read state.json, take in the logs of the
 * sessions that have ended (closed, or their process gone), leave those of sessions still running
 * alone (their changes are taken in once they end), drop what has aged out, and hand the result
 * to the sandbox to restore. `begin` then writes it back, with the origin now that the sandbox
 * listens; tidies away the files nobody needs any more (results past retention, start images of
 * finished jobs, what a killed session saved but never answered with); and opens this session's
 * log. state.json is replaced atomically, and names the sessions it has taken in, so a start
 * killed before their logs are deleted does not count them twice.
 *
 * The folder: state.json, lock, sessions/<n>/log.jsonl, sessions/<n>/files/ (results),
 * sessions/<n>/inputs/ (start images of video jobs).
 */
import { mkdir, readdir, readFile, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { writeAtomically } from './atomic-write.js';
import type { LogRecord } from './log-records.js';
import { isAlive, thisProcess } from './process-alive.js';
import { parseLog, SessionLog } from './session-log.js';
import { emptyState, type StateData, stateDataSchema } from './state-data.js';
import { SandboxStateError } from './state-error.js';
import { lockState } from './state-lock.js';
import { referencedFiles, StateModel } from './state-model.js';

export const STATE_FILE = 'state.json';

export interface OpenedState {
  /** What to restore: the saved state with every ended session taken in, pruned. */
  readonly data: StateData;
  /** This session's number: its folder, and the tag that keeps its ids apart from other sessions'. */
  readonly session: number;
  /** Write the state back with `origin` (unless it has one), tidy up, open this session's log. */
  begin(origin: string): Promise<SessionLog>;
  /** Let the next start-up in. */
  release(): Promise<void>;
}

export async function openState(dir: string, now: number, retentionMs: number): Promise<OpenedState> {
  const sessionsDir = path.join(dir, 'sessions');
  await guard(dir, 'cannot be written', () => mkdir(sessionsDir, { recursive: true }));
  const release = await guard(dir, 'cannot be locked', () => lockState(path.join(dir, 'lock')));
  try {
    const model = new StateModel(await readStateFile(dir));
    const numbers = await sessionNumbers(sessionsDir);
    const absorbed: number[] = [];
    const running = new Set<number>();
    for (const n of numbers) {
      const logFile = path.join(sessionsDir, String(n), 'log.jsonl');
      const text = await readFile(logFile, 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      if (model.absorbed.has(n)) {
        absorbed.push(n);
        continue;
      }
      const records = parseLog(text);
      if (!records) throw new SandboxStateError(dir, `has a damaged log, sessions/${n}/log.jsonl`);
      if (isRunning(records)) {
        running.add(n);
        continue;
      }
      for (const record of records) model.apply(record);
      absorbed.push(n);
    }
    const session = Math.max(model.nextSession, (numbers.at(-1) ?? 0) + 1);
    model.nextSession = session + 1;
    const data = model.toData(now, retentionMs, absorbed);
    return {
      data,
      session,
      async begin(origin) {
        data.origin ??= origin;
        const file = path.join(dir, STATE_FILE);
        await guard(dir, 'cannot be written', () => writeAtomically(file, `${JSON.stringify(data)}\n`, true));
        const ended = numbers.filter((n) => !running.has(n));
        await tidy(dir, referencedFiles(data), ended, new Set(absorbed));
        const own = path.join(sessionsDir, String(session));
        return guard(dir, 'cannot be written', async () => {
          await mkdir(path.join(own, 'files'), { recursive: true });
          await mkdir(path.join(own, 'inputs'), { recursive: true });
          return SessionLog.create(path.join(own, 'log.jsonl'), { t: 'owner', ...thisProcess(), started_at: now });
        });
      },
      release,
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/** A session whose process still runs and that has not said it ended. */
function isRunning(records: readonly LogRecord[]): boolean {
  const owner = records[0];
  return owner?.t === 'owner' && !records.some((record) => record.t === 'closed') && isAlive(owner);
}

async function readStateFile(dir: string): Promise<StateData> {
  let text: string;
  try {
    text = await readFile(path.join(dir, STATE_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return emptyState();
    throw new SandboxStateError(dir, `cannot be read (${code ?? String(error)})`, error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SandboxStateError(dir, `has a damaged ${STATE_FILE} (not JSON: ${(error as Error).message})`, error);
  }
  const parsed = stateDataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(top)';
    throw new SandboxStateError(dir, `has a damaged ${STATE_FILE} (${where}: ${issue?.message ?? 'invalid'})`);
  }
  return parsed.data;
}

async function sessionNumbers(sessionsDir: string): Promise<number[]> {
  const names = await readdir(sessionsDir).catch(() => [] as string[]);
  return names
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
}

/**
 * In the sessions that have ended: delete the files the state does not name, the logs it has
 * taken in, and the folders left empty. Best effort: what is left is tried again next time.
 */
async function tidy(
  dir: string,
  referenced: ReadonlySet<string>,
  sessions: readonly number[],
  absorbed: ReadonlySet<number>,
): Promise<void> {
  const ignore = () => undefined;
  for (const n of sessions) {
    const base = path.join(dir, 'sessions', String(n));
    for (const part of ['files', 'inputs']) {
      const names = await readdir(path.join(base, part)).catch(() => [] as string[]);
      for (const name of names) {
        if (!referenced.has(`sessions/${n}/${part}/${name}`)) await rm(path.join(base, part, name), { force: true });
      }
      await rmdir(path.join(base, part)).catch(ignore);
    }
    if (absorbed.has(n)) await rm(path.join(base, 'log.jsonl'), { force: true }).catch(ignore);
    await rmdir(base).catch(ignore);
  }
}

async function guard<T>(dir: string, problem: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SandboxStateError || (error as { code?: unknown }).code === 'locked') throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new SandboxStateError(dir, `${problem} (${code ?? (error as Error).message})`, error);
  }
}
