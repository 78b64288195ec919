// Test helper: Debian's Chromium driven by playwright-core (which downloads no browser). The flags keep it
// from reaching out on a closed network (QUIC probes, component updates, sync) and from needing a GPU or a
// sandbox in containers; a fresh profile per launch keeps runs independent.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser test cannot run here, or null when Chromium is installed. */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  return `no Chromium at ${CHROMIUM_PATH} (install Debian's package: apt-get install -y chromium)`;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'tokenmeter-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1480, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
