import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PortfolioComplianceResponse } from '@pa/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationCount, npmStart, platformCli, type Urls } from './support/npm-start.ts';

// `npm start` with the demo, on the embedded database, as a newcomer runs it: made slow, and killed half-way.
// Each test has a data directory of its own; nothing is wired by hand.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pa-start-demo-'));
  dirs.push(dir);
  return dir;
}
const demoEnv = (dir: string, extra: Record<string, string> = {}) => ({
  DEMO: 'true',
  LOG_FORMAT: 'pretty',
  PLATFORM_DATA_DIR: dir,
  GATEWAY_DATA_DIR: dir,
  ...extra,
});
const running = ({ stdout }: { stdout: string }) => stdout.includes('Property assistant is running');
const HEADLINE = 'which gas safety certificates have expired?';

/** The headline question asked in the chat, and its answer held against the bridge's own data. */
async function expectHeadlineAnswered(urls: Urls, dir: string): Promise<void> {
  const { key } = (await platformCli(dir, [
    'keys',
    'create',
    '--tenant',
    'demo-lettings',
    '--scopes',
    'bridge:read',
    '--label',
    'npm start test',
  ])) as { key: string };
  const compliance = (await (
    await fetch(`${urls.platform}/api/assistant-bridge/portfolio/compliance?status=expired&limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    })
  ).json()) as PortfolioComplianceResponse;
  const expiredGas = compliance.properties
    .filter((p) => p.items.some((i) => i.type === 'gas_safety' && i.status === 'expired'))
    .map((p) => p.ref)
    .sort();
  expect(expiredGas.length, 'the demo has expired gas certificates').toBeGreaterThan(0);

  const res = await fetch(`${urls.gateway}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: HEADLINE }),
  });
  expect(res.status).toBe(200);
  const { reply } = (await res.json()) as { reply: string };
  expect(reply, 'answered from the platform, not "not connected"').not.toMatch(/not connected/i);
  const tableRefs = [...reply.matchAll(/^\| ([A-Z]{3}-\d{3}) \|/gm)].map((m) => m[1]).sort();
  expect(tableRefs).toEqual(expiredGas);
}

describe('npm start with the demo', () => {
  // A slow machine only makes the start slower: every step made 4 s slower still ends with the worker bound, the
  // headline question answered, and the signed events wired (an approval in the review queue reaches the demo
  // worker's feed, signed by the platform and verified by the gateway).
  it('made slow: every step said as it happens, the worker bound, the question answered, events wired', async () => {
    const dir = dataDir();
    const { stderr, stdout } = await npmStart({
      env: demoEnv(dir, { START_STEP_DELAY_MS: '4000' }),
      until: running,
      waitMs: 420_000,
      during: async (urls) => {
        await expectHeadlineAnswered(urls, dir);

        const { key } = (await platformCli(dir, [
          'admins',
          'create',
          '--tenant',
          'demo-lettings',
          '--email',
          'events-test@demo.example',
        ])) as { key: string };
        const admin = { authorization: `Bearer ${key}` };
        const queue = (await (
          await fetch(`${urls.platform}/api/admin/review-queue?status=pending_review`, { headers: admin })
        ).json()) as { items: { proposal_id: number; kind: string }[] };
        const pending = queue.items.find((i) => i.kind === 'deal') ?? queue.items[0];
        expect(pending, 'the demo has pending proposals').toBeDefined();
        const context = (await (await fetch(`${urls.gateway}/api/web/context`)).json()) as {
          workspaceId: string;
          worker: { id: string };
        };
        const feed = async () =>
          (
            (await (
              await fetch(`${urls.gateway}/api/assistant/workers/${context.worker.id}/events`, {
                headers: { 'X-Workspace-Id': context.workspaceId },
              })
            ).json()) as { events: { type: string; message: string; data: { proposal_id?: number } }[] }
          ).events;
        const res = await fetch(`${urls.platform}/api/admin/proposals/${pending!.proposal_id}/approve`, {
          method: 'POST',
          headers: { ...admin, 'content-type': 'application/json' },
          body: JSON.stringify({ note: 'Approved in the npm start test.' }),
        });
        expect(res.status, await res.clone().text()).toBe(200);
        const deadline = Date.now() + 30_000;
        let event: Awaited<ReturnType<typeof feed>>[number] | undefined;
        while (!event && Date.now() < deadline) {
          event = (await feed()).find(
            (e) => e.type === 'proposal.approved' && e.data.proposal_id === pending!.proposal_id,
          );
        }
        expect(event?.message).toMatch(/was \*\*approved\*\*\. Note: “Approved in the npm start test\.”$/);

        // what the summary says of the briefing is what the Settings tab reads
        const briefing = (await (
          await fetch(`${urls.gateway}/api/assistant/email/summary/config/${context.worker.id}`, {
            headers: { 'X-Workspace-Id': context.workspaceId },
          })
        ).json()) as { enabled: boolean };
        expect(briefing.enabled).toBe(true);
      },
    });
    const steps = stderr.split('\n').filter((l) => l.startsWith('✓ '));
    expect(steps.map((l) => l.replace(/:.*| \(\d+\.\d s\)$/, ''))).toEqual([
      '✓ Preparing the platform database and the demo’s signed events',
      '✓ Preparing the gateway database and the demo worker',
      '✓ Starting platform-bridge',
      '✓ Starting agent-gateway',
      '✓ Binding the demo worker to demo-lettings',
      '✓ Turning on the demo’s daily briefing',
    ]);
    const migrations = migrationCount('platform');
    expect(stderr).toMatch(new RegExp(`Applied migration \\S+ \\(${migrations}/${migrations}\\)`));
    expect(stderr).toMatch(/demo tenant demo-lettings made \(24 properties, \d+ compliance items\)/);
    expect(stderr).toMatch(/smoke test read 24 properties/);
    expect(stdout).toMatch(/gateway flags +on: [^\n]*PLATFORM_EVENT_WEBHOOKS/);
    expect(stdout).toMatch(/daily briefing +on, daily at 08:00 Europe\/London time, on the web \(next: /);
    expect(existsSync(path.join(dir, 'demo-complete'))).toBe(true);
  }, 600_000);

  it('killed half-way (kill -9 before the worker is bound): the next start completes the demo', async () => {
    const dir = dataDir();
    const first = await npmStart({
      env: demoEnv(dir),
      until: ({ stderr }) => stderr.includes('… Starting agent-gateway'),
      end: 'SIGKILL',
      waitMs: 420_000,
    });
    expect(first.ended).toBe('killed');
    expect(first.stderr).not.toContain('Binding the demo worker');
    const workerId = readFileSync(path.join(dir, 'demo-worker-id'), 'utf8').trim();
    expect(existsSync(path.join(dir, 'demo-complete'))).toBe(false);

    const second = await npmStart({
      env: demoEnv(dir),
      until: running,
      waitMs: 420_000,
      during: (urls) => expectHeadlineAnswered(urls, dir),
    });
    expect(second.stderr, 'the demo tenant is not seeded twice').toMatch(
      new RegExp(
        `✓ Preparing the platform database and the demo’s signed events: ${migrationCount('platform')} migrations applied; demo-lettings's events go to `,
      ),
    );
    expect(second.stderr, 'the same worker, not a second one').toContain(
      `worker "Property Manager" ${workerId}`,
    );
    expect(second.stderr).toContain(
      '✓ Binding the demo worker to demo-lettings: smoke test read 24 properties',
    );
    expect(second.stderr).toContain('✓ Turning on the demo’s daily briefing');
    expect(existsSync(path.join(dir, 'demo-complete'))).toBe(true);
  }, 900_000);
});
