import type { RequestHandler } from 'express';
import type { StreamMetrics } from '../../lib/metrics/gateway-metrics.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import type { ChatService } from './chat-service.ts';

/** What every web chat route needs: one per-IP budget and one open-stream count across all of them. */
export interface ChatRouteDeps {
  chat: ChatService;
  providers: ProviderRegistry;
  rateLimit: RequestHandler;
  streamLimit: RequestHandler;
  pingMs: number;
  /** counts the event streams open (lib/metrics); default none */
  streams?: StreamMetrics | undefined;
}
