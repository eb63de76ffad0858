import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

// What "works on a phone-sized screen" means for a panel of the UI: nothing scrolls sideways, and every control
// is inside the screen and a comfortable touch target (44 px, WCAG 2.5.5).

/** Neither the page nor the panel is wider than the screen. */
export async function expectFitsScreen(page: Page, panelId: string): Promise<void> {
  const sizes = await page.evaluate((id) => {
    const panel = document.getElementById(id)!;
    return {
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      panelScroll: panel.scrollWidth,
      panelClient: panel.clientWidth,
    };
  }, panelId);
  expect(sizes.scrollWidth).toBeLessThanOrEqual(sizes.clientWidth);
  expect(sizes.panelScroll).toBeLessThanOrEqual(sizes.panelClient);
}

/** The control, scrolled into view, lies inside a screen `width` wide and is at least 44 px tall. */
export async function expectTouchable(locator: Locator, width: number): Promise<void> {
  await locator.scrollIntoViewIfNeeded();
  const box = (await locator.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  expect(box.height).toBeGreaterThanOrEqual(44);
}
