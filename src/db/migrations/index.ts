import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_foundation } from './Migration20261121000000_foundation.js';
import { Migration20261121000100_rate_limits } from './Migration20261121000100_rate_limits.js';
import { Migration20261121000200_conversations } from './Migration20261121000200_conversations.js';
import { Migration20261121000400_metrics } from './Migration20261121000400_metrics.js';
import { Migration20261121000410_metrics_covering_keys } from './Migration20261121000410_metrics_covering_keys.js';
import { Migration20261122000000_metrics_hour_grains } from './Migration20261122000000_metrics_hour_grains.js';
import { Migration20261123000000_ai_writes_and_events } from './Migration20261123000000_ai_writes_and_events.js';
import { Migration20261123000100_conversation_writes } from './Migration20261123000100_conversation_writes.js';
import { Migration20261123000200_whatsapp } from './Migration20261123000200_whatsapp.js';
import { Migration20261123000300_webhooks } from './Migration20261123000300_webhooks.js';
import { Migration20261125000000_agent_management } from './Migration20261125000000_agent_management.js';
import { Migration20261125000000_whatsapp_outbound } from './Migration20261125000000_whatsapp_outbound.js';
import { Migration20261125000100_open_streams } from './Migration20261125000100_open_streams.js';
import { Migration20261125000200_handoff } from './Migration20261125000200_handoff.js';
import { Migration20261125000300_event_sequencer } from './Migration20261125000300_event_sequencer.js';
import { Migration20261125000400_metrics_deltas } from './Migration20261125000400_metrics_deltas.js';
import { Migration20261125000600_metrics_series_rollups } from './Migration20261125000600_metrics_series_rollups.js';
import { Migration20261126000200_inbox } from './Migration20261126000200_inbox.js';

/** Every migration, in order, by class reference (no folder scanning). */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
  { name: 'Migration20261121000100_rate_limits', class: Migration20261121000100_rate_limits },
  { name: 'Migration20261121000200_conversations', class: Migration20261121000200_conversations },
  { name: 'Migration20261121000400_metrics', class: Migration20261121000400_metrics },
  { name: 'Migration20261121000410_metrics_covering_keys', class: Migration20261121000410_metrics_covering_keys },
  { name: 'Migration20261122000000_metrics_hour_grains', class: Migration20261122000000_metrics_hour_grains },
  { name: 'Migration20261123000000_ai_writes_and_events', class: Migration20261123000000_ai_writes_and_events },
  { name: 'Migration20261123000100_conversation_writes', class: Migration20261123000100_conversation_writes },
  { name: 'Migration20261123000200_whatsapp', class: Migration20261123000200_whatsapp },
  { name: 'Migration20261123000300_webhooks', class: Migration20261123000300_webhooks },
  { name: 'Migration20261125000000_agent_management', class: Migration20261125000000_agent_management },
  { name: 'Migration20261125000000_whatsapp_outbound', class: Migration20261125000000_whatsapp_outbound },
  { name: 'Migration20261125000100_open_streams', class: Migration20261125000100_open_streams },
  { name: 'Migration20261125000200_handoff', class: Migration20261125000200_handoff },
  { name: 'Migration20261125000300_event_sequencer', class: Migration20261125000300_event_sequencer },
  { name: 'Migration20261125000400_metrics_deltas', class: Migration20261125000400_metrics_deltas },
  { name: 'Migration20261125000600_metrics_series_rollups', class: Migration20261125000600_metrics_series_rollups },
  { name: 'Migration20261126000200_inbox', class: Migration20261126000200_inbox },
];
