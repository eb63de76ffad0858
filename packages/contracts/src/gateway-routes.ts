import { accessRoutes } from './gateway-routes/access.ts';
import { channelRoutes } from './gateway-routes/channels.ts';
import { chatRoutes } from './gateway-routes/chat.ts';
import { dailySummaryRoutes } from './gateway-routes/daily-summary.ts';
import { embedRoutes } from './gateway-routes/embed.ts';
import { embedKeyRoutes } from './gateway-routes/embed-keys.ts';
import { mailboxRoutes } from './gateway-routes/mailboxes.ts';
import { platformEventRoutes } from './gateway-routes/platform-events.ts';
import { workerRoutes } from './gateway-routes/workers.ts';
import { operationsRoutes } from './health.ts';
import { defineRoutes } from './routes.ts';

export { SUMMARY_CONFIG_BASE, WORKERS_BASE } from './gateway-routes/shared.ts';
export { EMBED_API_BASE } from './gateway-routes/embed.ts';
export { EmbedKeyCreated, EmbedKeysResponse } from './gateway-routes/embed-keys.ts';

// Every endpoint of the agent gateway app, one table per area under gateway-routes/: web chat and the
// OpenAI-compatible endpoint, workers and their platform binding, channels, the daily summary, platform events,
// access, mailboxes, embed keys, the embedded chat, and the operations routes. The order of the areas is the order
// of the OpenAPI document.

const operations = operationsRoutes('The database is reachable (Redis is reported but optional)');
const areas = [
  chatRoutes,
  workerRoutes,
  channelRoutes,
  dailySummaryRoutes,
  platformEventRoutes,
  accessRoutes,
  mailboxRoutes,
  embedKeyRoutes,
  embedRoutes,
  operations,
];

// An operationId repeated in two areas would silently replace the first one in the spread below.
const operationIds = areas.flatMap((area) => Object.keys(area));
const repeated = operationIds.filter((id, i) => operationIds.indexOf(id) !== i);
if (repeated.length > 0) throw new Error(`Gateway routes named twice: ${repeated.join(', ')}.`);

export const gatewayRoutes = defineRoutes({
  ...chatRoutes,
  ...workerRoutes,
  ...channelRoutes,
  ...dailySummaryRoutes,
  ...platformEventRoutes,
  ...accessRoutes,
  ...mailboxRoutes,
  ...embedKeyRoutes,
  ...embedRoutes,
  ...operations,
});

export type GatewayRoutes = typeof gatewayRoutes;
