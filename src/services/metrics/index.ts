/**
 * AI metrics (CONTRACT §6.3, §9.5): the six figures of a period and its comparison period
 * (metrics.service, built from the aggregates' SQL in aggregates.ts over the rollups' signed covers
 * of cover.ts), and series over local calendar buckets (series-plan lays them out, series reads them).
 */
export { MetricsService } from './metrics.service.js';
