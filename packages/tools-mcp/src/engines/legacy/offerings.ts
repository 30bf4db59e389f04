import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  PaginatedResultSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import type { ConnectionEvents, EngineConnection, OfferingChange } from '../engine.js';
import { updatedUri } from '../offering-requests.js';

/** A `tools/list` page whose tools the listing checks one by one (see `checkTools`), not all at once. */
export const LenientListSchema = PaginatedResultSchema.extend({ tools: z.array(z.unknown()) });

/**
 * Hands the server's list-change and resource-update notifications to `events`, while `live()`
 * (not after the connection closed or was lost). Never throws.
 */
export function watchNotifications(
  sdk: Client,
  connection: EngineConnection,
  events: ConnectionEvents,
  live: () => boolean,
): void {
  const notify = (change: OfferingChange): void => {
    if (live()) events.offeringChanged(connection, change);
  };
  sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    if (live()) events.toolsChanged(connection);
  });
  sdk.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
    notify({ kind: 'resources' }),
  );
  sdk.setNotificationHandler(PromptListChangedNotificationSchema, () =>
    notify({ kind: 'prompts' }),
  );
  sdk.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    const uri = updatedUri(notification);
    if (uri !== undefined) notify({ kind: 'resource', uri });
  });
}
