/**
 * The browser for the browser tests: the system's Chromium (Debian's `chromium` package) driven by
 * playwright-core, which never downloads a browser of its own. ASSETLINE_CHROMIUM names another.
 */
import { accessSync, constants } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Where the Chromium executable is expected: ASSETLINE_CHROMIUM, else Debian's path. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.ASSETLINE_CHROMIUM || DEFAULT_CHROMIUM;
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The line a skipped browser test prints, so a skip is never silent. */
export function missingChromiumMessage(file: string): string {
  return `Chromium was not found at ${file}: the browser tests are skipped. Install Debian's \`chromium\` package or set ASSETLINE_CHROMIUM to a Chromium executable.`;
}

// Without the background-networking flags Chromium keeps trying to reach Google's services, which
// on a closed network makes every start and page slow.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: FLAGS });
}
