import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Debian's chromium, or the browser named by CHROME_PATH; browser tests skip (saying why) when there is none. */
export const browserPath: string | undefined = [
  process.env.CHROME_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
].find((p): p is string => p !== undefined && p !== '' && existsSync(p));

/** The `skip` option of a browser test suite. */
export const skipWithoutBrowser: false | string = browserPath ? false : 'no Chromium found (apt-get install chromium, or set CHROME_PATH)';

/** A headless Chromium with a throw-away profile; `close` also removes the profile. */
export interface HeadlessChromium {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium for a test. No sandbox (CI runs as root) and no background networking: the pages under
 * test must work with no network at all.
 */
export async function launchHeadless(options: { extraArgs?: readonly string[] } = {}): Promise<HeadlessChromium> {
  if (!browserPath) throw new Error(String(skipWithoutBrowser));
  const profile = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: browserPath,
    headless: true,
    userDataDir: profile,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      ...(options.extraArgs ?? []),
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
