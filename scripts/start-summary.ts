import { prettyFactory } from 'pino-pretty';
import type { BriefingState } from './provision-demo.ts';

// What `npm start` shows on a terminal: the apps' log lines pretty-printed, and a short summary once both answer.

export type LogFormat = 'pretty' | 'json';

/** LOG_FORMAT=pretty|json when set; otherwise pretty on a terminal, JSON when stdout is a pipe or a file. */
export function logFormat(value: string | undefined, isTTY: boolean): LogFormat {
  if (value === 'pretty' || value === 'json') return value;
  return isTTY ? 'pretty' : 'json';
}

const pretty = new Map<boolean, (line: string) => string>();

/** One log line as a person reads it (a line that is not JSON passes unchanged); ends with a newline. */
export function prettyLogLine(line: string, colour: boolean): string {
  let format = pretty.get(colour);
  if (!format) {
    format = prettyFactory({
      colorize: colour,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,service',
      messageFormat: '{service}: {msg}',
    }) as (line: string) => string;
    pretty.set(colour, format);
  }
  return format(line);
}

const GATEWAY_FLAGS = [
  ['WEB_ENABLED', true],
  ['AI_WORKERS_ENABLED', false],
  ['PLATFORM_BRIDGE_ENABLED', false],
  ['PLATFORM_BRIDGE_WRITES', false],
  ['ASSISTANT_DAILY_SUMMARY_ENABLED', false],
  ['PLATFORM_EVENT_WEBHOOKS', false],
  ['EMAIL_INGESTION_ENABLED', false],
] as const;

export const REVIEW_QUEUE_PAGE = '/settings/review-queue';
export const REMOTE_ACCESS_PAGE = '/settings/remote-access';
/**
 * The admin scopes both pages need: the review queue's two, and access:manage for the remote-access settings
 * (`admins create` without --scopes gives the review queue's only).
 */
const ADMIN_SCOPES = 'review:read,review:write,access:manage';
/** The one command that makes an admin key for both pages for the demo tenant (it prints the key once). */
export const ADMIN_KEY_COMMAND = `npm run platform -- admins create --tenant demo-lettings --email you@example.com --scopes ${ADMIN_SCOPES}`;

const isOn = (value: string | undefined, fallback: boolean) =>
  value === undefined || value === '' ? fallback : value === 'true' || value === '1';

export function startSummary(opts: {
  env: NodeJS.ProcessEnv;
  platformUrl: string;
  gatewayUrl: string;
  demo: boolean;
  /** the demo worker's daily briefing as the gateway reports it (null: off, or not known) */
  briefing?: BriefingState | null;
}): string {
  const { env, platformUrl, gatewayUrl } = opts;
  const on = GATEWAY_FLAGS.filter(([k, d]) => isOn(env[k], d)).map(([k]) => k);
  const off = GATEWAY_FLAGS.filter(([k, d]) => !isOn(env[k], d)).map(([k]) => k);
  const rows: [string, string][] = [
    ['platform-bridge', `${platformUrl}  (bridge API /api/assistant-bridge, contract /openapi.json)`],
    ['agent-gateway', `${gatewayUrl}  (chat UI at /, contract /openapi.json)`],
    ['gateway flags', `on: ${on.join(', ') || 'none'}${off.length ? `; off: ${off.join(', ')}` : ''}`],
    [
      'review queue',
      `${platformUrl}${REVIEW_QUEUE_PAGE}  (the assistant's proposals, for an admin to approve)`,
    ],
    [
      'remote access',
      `${platformUrl}${REMOTE_ACCESS_PAGE}  (keys for assistants, the tenant's switches, signed events)`,
    ],
  ];
  if (opts.demo) {
    rows.splice(
      3,
      0,
      [
        'demo',
        'tenant demo-lettings (bridge, proposals and review queue on), worker "Property Manager" bound to it',
      ],
      ['try', `open ${gatewayUrl} and ask "which gas safety certificates have expired?"`],
      ['', 'or in a terminal: npm run gateway -- chat'],
      ['', 'or "propose a deal to acquire 14 Oak Street for £250,000", then approve it in the review queue'],
      ['', `or Settings → Daily briefing → "Send a briefing now"`],
      ['daily briefing', briefingLine(env, opts.briefing ?? null)],
    );
    // under the two pages it opens
    rows.push(['admin key', ADMIN_KEY_COMMAND]);
  } else {
    rows.splice(3, 0, ['demo', 'off (DEMO=false)']);
    rows.push([
      'admin key',
      `npm run platform -- admins create --tenant <slug> --email <you> --scopes ${ADMIN_SCOPES}`,
    ]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  const body = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
  return `\nProperty assistant is running. Ctrl-C stops both apps.\n${body}\n\n`;
}

/** What the Settings tab shows, in one line: on with its next run, or off and how to turn it on. */
export function briefingLine(env: NodeJS.ProcessEnv, briefing: BriefingState | null): string {
  if (!isOn(env.ASSISTANT_DAILY_SUMMARY_ENABLED, false))
    return 'off (ASSISTANT_DAILY_SUMMARY_ENABLED is false; set it to true to offer briefings)';
  if (!briefing?.enabled) return 'off; turn it on in the chat: Settings → Daily briefing (needs Redis)';
  const next = briefing.nextRunAt
    ? new Date(briefing.nextRunAt).toLocaleString('en-GB', {
        timeZone: briefing.timezone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
      })
    : 'not scheduled';
  return `on, ${describeSchedule(briefing.summarySchedule)} ${briefing.timezone} time, on the ${briefing.deliveryChannel} (next: ${next})`;
}

/** "at 08:00 daily" for the simple daily schedules people pick; the cron expression itself otherwise. */
function describeSchedule(cron: string): string {
  const m = /^(\d{1,2}) (\d{1,2}) \* \* \*$/.exec(cron.trim());
  return m ? `daily at ${m[2]!.padStart(2, '0')}:${m[1]!.padStart(2, '0')}` : `on "${cron}"`;
}
