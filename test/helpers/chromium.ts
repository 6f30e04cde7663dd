import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, installed by .ci/run when test/browser/.needs-chromium exists. */
export const CHROMIUM = "/usr/bin/chromium";
/** Browser tests skip themselves, with a reason, when this is false. */
export const chromiumPresent = existsSync(CHROMIUM);

/** Headless Chromium for the browser tests: no sandbox, no GPU, no traffic of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
