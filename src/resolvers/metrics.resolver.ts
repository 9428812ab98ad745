import { GraphQLSafeInt } from 'graphql-scalars';
import { Args, ArgsType, Ctx, Field, Float, Int, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/index.js';
import type * as M from '../services/metrics/metrics.service.js';
import type * as S from '../services/metrics/series-plan.js';

@ArgsType()
export class MetricsQueryArgs implements M.MetricsArgs {
  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Restricts the metrics to one business.' }) business_id?: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Restricts the metrics to the businesses of one franchise.' }) franchise_id?:
    number | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM; without it, the current day.' }) month?: string | null;
  @Field(() => String, { nullable: true, description: 'IANA zone name; wins over timezone_offset.' }) timezone?: string | null;
  @Field(() => Int, { nullable: true, description: 'Hours from UTC, -12..14.' }) timezone_offset?: number | null;
}

@ObjectType({ simpleResolvers: true, description: 'A count in the period and the comparison period.' })
export class CountComparison implements M.Comparison {
  @Field(() => Int) current!: number;
  @Field(() => Int) previous!: number;
  @Field(() => Float) change_percentage!: number;
}

@ObjectType({ simpleResolvers: true, description: 'An amount, average or percentage in the period and the comparison period.' })
export class ValueComparison implements M.Comparison {
  @Field(() => Float) current!: number;
  @Field(() => Float) previous!: number;
  @Field(() => Float) change_percentage!: number;
}

@ObjectType({ simpleResolvers: true })
export class CurrentCount {
  @Field(() => Int) current!: number;
}

@ObjectType({ simpleResolvers: true, description: 'AI orders of one agent kind (provider + provider_type).' })
export class AgentMetric implements M.AgentMetric {
  @Field(() => String) provider!: string;
  @Field(() => String) provider_type!: string;
  @Field(() => Int) orders!: number;
  @Field(() => Float) revenue!: number;
  @Field(() => Float) participation_percentage!: number;
}

@ObjectType({ simpleResolvers: true })
export class ChatMetrics implements M.ChatMetrics {
  @Field(() => CurrentCount) active_chats!: CurrentCount;
  @Field(() => CountComparison) total_chats!: CountComparison;
  @Field(() => CountComparison) completed_chats!: CountComparison;
  @Field(() => CountComparison) abandoned_chats!: CountComparison;
  @Field(() => CountComparison) failed_chats!: CountComparison;
  @Field(() => ValueComparison) success_rate!: ValueComparison;
}

@ObjectType({ simpleResolvers: true })
export class OrderMetrics implements M.OrderMetrics {
  @Field(() => CountComparison) total_orders!: CountComparison;
  @Field(() => ValueComparison) total_revenue!: ValueComparison;
  @Field(() => ValueComparison) average_revenue!: ValueComparison;
  @Field(() => CountComparison) completed_orders!: CountComparison;
  @Field(() => CountComparison) cancelled_orders!: CountComparison;
  @Field(() => CountComparison) active_orders!: CountComparison;
}

@ObjectType({ simpleResolvers: true })
export class PerformanceMetrics implements M.PerformanceMetrics {
  @Field(() => ValueComparison) average_cost!: ValueComparison;
  @Field(() => ValueComparison) average_response_time_ms!: ValueComparison;
  @Field(() => CountComparison) human_minutes_saved!: CountComparison;
  @Field(() => ValueComparison) roi!: ValueComparison;
  @Field(() => ValueComparison) conversion_rate!: ValueComparison;
}

@ObjectType({ simpleResolvers: true })
export class ProductMetric implements M.ProductMetric {
  @Field(() => GraphQLSafeInt, { nullable: true }) product_id!: number | null;
  @Field(() => String, { description: 'As on the order line.' }) name!: string;
  @Field(() => Int, { description: 'Total quantity.' }) times_sold!: number;
  @Field(() => Int, { description: 'Orders containing the product.' }) orders!: number;
  @Field(() => Float, { description: 'Sum of quantity × price.' }) revenue!: number;
}

@ObjectType({ simpleResolvers: true })
export class ProviderTypeComparison implements M.ProviderTypeComparison {
  @Field(() => String) provider_type!: string;
  @Field(() => Int) current!: number;
  @Field(() => Int) previous!: number;
  @Field(() => Float) change_percentage!: number;
}

@ObjectType({ simpleResolvers: true })
export class OverviewRevenue {
  @Field(() => ValueComparison) total!: ValueComparison;
  @Field(() => ValueComparison) average!: ValueComparison;
}

@ObjectType({ simpleResolvers: true })
export class OverviewConversations {
  @Field(() => CountComparison) total!: CountComparison;
  @Field(() => [ProviderTypeComparison]) by_provider_type!: ProviderTypeComparison[];
}

@ObjectType({ simpleResolvers: true })
export class OverviewMetrics implements M.OverviewMetrics {
  @Field(() => CountComparison) orders!: CountComparison;
  @Field(() => OverviewRevenue) revenue!: OverviewRevenue;
  @Field(() => OverviewConversations) conversations!: OverviewConversations;
}

@ArgsType()
export class MetricsSeriesArgs implements S.SeriesArgs {
  @Field(() => String, {
    description:
      'orders, revenue, conversations, completed_chats, abandoned_chats, failed_chats, success_rate, average_cost or conversion_rate.',
  })
  metric!: string;
  @Field(() => String, { description: 'hour, day, week (ISO, from Monday) or month.' }) group_by!: string;
  @Field(() => String, { description: 'YYYY-MM-DD: the first local day of the range.' }) from!: string;
  @Field(() => String, { description: 'YYYY-MM-DD: the last local day of the range (inclusive).' }) to!: string;
  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Restricts the series to one business.' }) business_id?: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Restricts the series to the businesses of one franchise.' }) franchise_id?:
    number | null;
  @Field(() => String, { nullable: true, description: 'IANA zone name; wins over timezone_offset.' }) timezone?: string | null;
  @Field(() => Int, { nullable: true, description: 'Hours from UTC, -12..14.' }) timezone_offset?: number | null;
}

@ObjectType({ simpleResolvers: true, description: 'One bucket of a series.' })
export class SeriesPoint implements S.SeriesPoint {
  @Field(() => String, { description: "The bucket's own local start, ISO 8601 with the zone's offset at that instant." }) start!: string;
  @Field(() => Float) value!: number;
}

@ObjectType({ simpleResolvers: true, description: 'A metric over local calendar buckets.' })
export class MetricsSeries implements S.MetricsSeries {
  @Field(() => String) metric!: string;
  @Field(() => String) group_by!: string;
  @Field(() => String, { description: 'UTC, the IANA name, or UTC±HH:MM for an offset.' }) timezone!: string;
  @Field(() => [SeriesPoint]) points!: SeriesPoint[];
}

/** The six AI metrics (spec §4.4, CONTRACT §6.3); the service does the work. */
@Resolver()
export class MetricsResolver {
  @Query(() => [AgentMetric], { description: 'AI orders by agent provider + provider_type (GET /ai/metrics/agents).' })
  metricsAgents(@Ctx() ctx: RequestContext, @Args(() => MetricsQueryArgs) args: MetricsQueryArgs): Promise<AgentMetric[]> {
    return ctx.services.metrics.agents(ctx, args);
  }

  @Query(() => ChatMetrics, { description: 'Conversation counts and success rate (GET /ai/metrics/chats).' })
  metricsChats(@Ctx() ctx: RequestContext, @Args(() => MetricsQueryArgs) args: MetricsQueryArgs): Promise<ChatMetrics> {
    return ctx.services.metrics.chats(ctx, args);
  }

  @Query(() => OrderMetrics, { description: 'AI order counts and revenue (GET /ai/metrics/orders).' })
  metricsOrders(@Ctx() ctx: RequestContext, @Args(() => MetricsQueryArgs) args: MetricsQueryArgs): Promise<OrderMetrics> {
    return ctx.services.metrics.orders(ctx, args);
  }

  @Query(() => PerformanceMetrics, { description: 'Cost, response time, minutes saved, ROI, conversion (GET /ai/metrics/performance).' })
  metricsPerformance(@Ctx() ctx: RequestContext, @Args(() => MetricsQueryArgs) args: MetricsQueryArgs): Promise<PerformanceMetrics> {
    return ctx.services.metrics.performance(ctx, args);
  }

  @Query(() => [ProductMetric], { description: 'Top 10 products of AI orders (GET /ai/metrics/products).' })
  metricsProducts(@Ctx() ctx: RequestContext, @Args(() => MetricsQueryArgs) args: MetricsQueryArgs): Promise<ProductMetric[]> {
    return ctx.services.metrics.products(ctx, args);
  }

  @Query(() => MetricsSeries, { description: 'One metric over local hours, days, weeks or months (GET /ai/metrics/series).' })
  metricsSeries(@Ctx() ctx: RequestContext, @Args(() => MetricsSeriesArgs) args: MetricsSeriesArgs): Promise<MetricsSeries> {
    return ctx.services.metrics.series(ctx, args);
  }

  @Query(() => OverviewMetrics, { description: 'Orders, revenue and conversations at a glance (GET /ai/metrics/overview).' })
  metricsOverview(@Ctx() ctx: RequestContext, @Args(() => MetricsQueryArgs) args: MetricsQueryArgs): Promise<OverviewMetrics> {
    return ctx.services.metrics.overview(ctx, args);
  }
}
