import type { z } from 'zod';
import type { OwnEmailReader } from '../email/worker-email-activity.ts';
import type { KnowledgePassage } from '../knowledge/knowledge-passage.ts';
import type { PlatformBridgeClient } from '../../clients/bridge/platform-bridge-client.ts';

/** The worker's synced knowledge corpus, searched (features/knowledge/): what platform-search-knowledge reads. */
export interface KnowledgeSearch {
  search(q: { query: string; propertyId?: number | null; limit?: number }): Promise<KnowledgePassage[]>;
}

// One worker tool over the bridge client: its name, its description for the model, the schema its arguments are
// checked with (and which the model is shown as JSON Schema), and what it does.

/** What a tool's run may use besides its client and arguments. */
export interface ToolContext {
  signal: AbortSignal;
  /** the platform's review queue page, `{PLATFORM_BASE_URL}/settings/review-queue`, when known */
  reviewQueueUrl: string | null;
  /** the worker's own mailboxes, when it reads any (EMAIL_INGESTION_ENABLED) */
  ownEmail?: OwnEmailReader | undefined;
  /** the worker's synced knowledge corpus, when it has one (platform-search-knowledge) */
  knowledge?: KnowledgeSearch | undefined;
}

export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  schema: S;
  run(client: PlatformBridgeClient, args: z.output<S>, context: ToolContext): Promise<unknown>;
}

export type AnySpec = ToolSpec<z.ZodType>;

export function spec<S extends z.ZodType>(s: ToolSpec<S>): AnySpec {
  return s as unknown as AnySpec;
}
