import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_foundation } from './Migration20261121000000_foundation.js';
import { Migration20261121000100_rate_limits } from './Migration20261121000100_rate_limits.js';
import { Migration20261121000200_conversations } from './Migration20261121000200_conversations.js';
import { Migration20261121000400_metrics } from './Migration20261121000400_metrics.js';
import { Migration20261121000410_metrics_month_grain } from './Migration20261121000410_metrics_month_grain.js';
import { Migration20261121000420_metrics_truncate } from './Migration20261121000420_metrics_truncate.js';
import { Migration20261121000430_metrics_normalize } from './Migration20261121000430_metrics_normalize.js';
import { Migration20261121000440_metrics_refresh_once } from './Migration20261121000440_metrics_refresh_once.js';
import { Migration20261121000450_metrics_inline_buckets } from './Migration20261121000450_metrics_inline_buckets.js';

/** Every migration, in order, by class reference (no folder scanning). */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
  { name: 'Migration20261121000100_rate_limits', class: Migration20261121000100_rate_limits },
  { name: 'Migration20261121000200_conversations', class: Migration20261121000200_conversations },
  { name: 'Migration20261121000400_metrics', class: Migration20261121000400_metrics },
  { name: 'Migration20261121000410_metrics_month_grain', class: Migration20261121000410_metrics_month_grain },
  { name: 'Migration20261121000420_metrics_truncate', class: Migration20261121000420_metrics_truncate },
  { name: 'Migration20261121000430_metrics_normalize', class: Migration20261121000430_metrics_normalize },
  { name: 'Migration20261121000440_metrics_refresh_once', class: Migration20261121000440_metrics_refresh_once },
  { name: 'Migration20261121000450_metrics_inline_buckets', class: Migration20261121000450_metrics_inline_buckets },
];
