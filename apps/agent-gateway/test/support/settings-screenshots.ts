import { type Page } from 'playwright-core';
import { saveScreenshot } from '@pa/http-kit/testing';

const DEVICES = [
  { device: 'desktop', width: 1000 },
  { device: 'phone', width: 375 },
] as const;

/**
 * Saves one state of the Settings tab four times, `<name>-{desktop,phone}-{light,dark}.png`, each window as tall as
 * the tab (the tab scrolls inside the page, so a full-page shot would cut it). The page's size and colour scheme
 * are put back afterwards.
 */
export async function saveSettingsScreenshots(page: Page, name: string): Promise<string[]> {
  const original = page.viewportSize();
  const files: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const { device, width } of DEVICES) {
      await page.setViewportSize({ width, height: 700 });
      const height = await page.evaluate(() => {
        const panel = document.getElementById('panel-settings')!;
        return Math.ceil(panel.getBoundingClientRect().top + panel.scrollHeight + 16);
      });
      await page.setViewportSize({ width, height: Math.max(700, height) });
      files.push(await saveScreenshot(page, `${name}-${device}-${colorScheme}.png`));
    }
  }
  await page.emulateMedia({ colorScheme: null });
  if (original) await page.setViewportSize(original);
  return files;
}
