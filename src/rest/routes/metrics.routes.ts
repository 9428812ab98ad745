import { ACCESS } from '../../services/identity/access.js';
import { SERIES_GROUPINGS, SERIES_METRICS } from '../../services/metrics/series-plan.js';
import type { RouteSpec } from '../route-spec.js';
import { ID_MAX } from '../../services/conversations/message-rules.js';

/** The common query parameters of every metrics operation (spec §4.4, §8). */
const METRICS_QUERY = {
  type: 'object',
  properties: {
    business_id: { type: 'integer', format: 'int64', minimum: 1, maximum: ID_MAX },
    franchise_id: { type: 'integer', format: 'int64', minimum: 1, maximum: ID_MAX },
    month: { type: 'string', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM; without it, the current day' },
    timezone: { type: 'string', maxLength: 64, description: 'IANA zone name; wins over timezone_offset' },
    timezone_offset: { type: 'integer', minimum: -12, maximum: 14, description: 'hours from UTC' },
  },
};

const metric = (name: string, operation: string, summary: string): RouteSpec => ({
  method: 'GET',
  path: `/ai/metrics/${name}`,
  operation,
  summary,
  tags: ['ai-metrics'],
  access: ACCESS.AI_ADMIN,
  ai: true,
  schema: { querystring: METRICS_QUERY },
  errors: ['ERROR_BUSINESS_NOT_FOUND'],
});

export const metricsRoutes: RouteSpec[] = [
  metric('agents', 'MetricsAgents', 'AI orders by agent (provider + provider_type) in the period'),
  metric('chats', 'MetricsChats', 'Conversation counts and success rate, with comparison'),
  metric('orders', 'MetricsOrders', 'AI orders and revenue by status group, with comparison'),
  metric('overview', 'MetricsOverview', 'AI orders, revenue and conversations by provider type, with comparison'),
  metric('performance', 'MetricsPerformance', 'Cost, response time, minutes saved, ROI and conversion, with comparison'),
  metric('products', 'MetricsProducts', 'Top 10 products of AI orders in the period'),
  {
    method: 'GET',
    path: '/ai/metrics/series',
    operation: 'MetricsSeries',
    errors: ['ERROR_BUSINESS_NOT_FOUND', 'ERROR_AI_AGENT_NOT_FOUND'],
    summary: 'One metric over local hours, days, ISO weeks or months of a range, zero-filled',
    tags: ['ai-metrics'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: {
      querystring: {
        type: 'object',
        required: ['metric', 'group_by', 'from', 'to'],
        properties: {
          metric: { type: 'string', enum: [...SERIES_METRICS] },
          group_by: { type: 'string', enum: [...SERIES_GROUPINGS] },
          from: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD, the first local day' },
          to: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD, the last local day (inclusive)' },
          business_id: METRICS_QUERY.properties.business_id,
          franchise_id: METRICS_QUERY.properties.franchise_id,
          timezone: METRICS_QUERY.properties.timezone,
          timezone_offset: METRICS_QUERY.properties.timezone_offset,
        },
      },
    },
  },
];
