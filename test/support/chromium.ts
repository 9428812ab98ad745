import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`); browser tests skip, saying why, without it. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);

/** The zone every console test's browser runs in (`timezoneId`): the console's "today" is today there. */
export const BROWSER_ZONE = 'Europe/Madrid';

/** The calendar day (YYYY-MM-DD) in the browser's zone at `ms`; this process's own zone plays no part. */
export const browserDay = (ms = Date.now()): string => new Date(ms).toLocaleDateString('sv', { timeZone: BROWSER_ZONE });

export function warnIfNoChromium(label: string): void {
  if (!HAVE_CHROMIUM) console.warn(`${label} skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
}

/** Headless, with the background networking off: this machine's network is closed, and no request may leave. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A context at `viewport` in BROWSER_ZONE where no request leaves the machine: every request to a host other than
 * 127.0.0.1 is aborted, and its address kept in `blocked` (a test expects it empty).
 */
export async function offlineContext(
  browser: Browser,
  viewport: { width: number; height: number },
  isMobile = false,
): Promise<{ context: BrowserContext; blocked: string[] }> {
  const context = await browser.newContext({ viewport, isMobile, hasTouch: isMobile, timezoneId: BROWSER_ZONE });
  const blocked: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== '127.0.0.1') {
      blocked.push(url.href);
      return route.abort('blockedbyclient');
    }
    return route.continue();
  });
  return { context, blocked };
}
