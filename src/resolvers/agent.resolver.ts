import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { GraphQLError, GraphQLScalarType } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { AiAgent } from '../entities/ai-agent.js';
import type { RequestContext } from '../context/index.js';
import { credentialFlags } from '../services/agents/agent-credentials.js';
import type { AgentInput } from '../services/agents/agent.service.js';
import type { Page } from '../services/conversations/conversation.service.js';
import type { CredentialCheck } from '../providers/messaging.js';
import { Pagination } from './conversation.resolver.js';

/** Output only: an object of booleans, which credential keys are stored (never their values). */
export const CredentialFlags = new GraphQLScalarType({
  name: 'CredentialFlags',
  description: 'Which credential keys an agent has stored: `{"access_token": true, "app_secret": false, …}`. Values are never shown.',
  serialize: (value) => value,
  parseValue: () => {
    throw new GraphQLError('CredentialFlags is an output type');
  },
  parseLiteral: () => {
    throw new GraphQLError('CredentialFlags is an output type');
  },
});

@ObjectType({ simpleResolvers: true, description: 'One page of agents.' })
export class AiAgentPage implements Page<AiAgent> {
  @Field(() => [AiAgent]) items!: AiAgent[];
  @Field(() => Pagination) pagination!: Pagination;
}

@ObjectType({
  simpleResolvers: true,
  description: "What the provider says about the agent's account (POST /ai/agents/{agent_id}/credentials/check).",
})
export class AiCredentialCheck implements CredentialCheck {
  @Field(() => String, { nullable: true }) display_phone_number!: string | null;
  @Field(() => String, { nullable: true }) verified_name!: string | null;
  @Field(() => String, { nullable: true }) quality_rating!: string | null;
}

const CREDENTIALS = {
  nullable: true,
  description:
    'An object of strings, write-only (WhatsApp: waba_id, phone_number_id, access_token, app_secret, verify_token, dataset_id (the Conversions API dataset)); in a patch a key set to null is removed.',
};

/** Agents (CONTRACT §10.3): thin, the rules live in AgentService. */
@Resolver(() => AiAgent)
export class AgentResolver {
  @Query(() => AiAgentPage, { description: 'Agents visible to the caller (GET /ai/agents).' })
  aiAgents(
    @Ctx() ctx: RequestContext,
    @Arg('where', () => GraphQLJSON, {
      nullable: true,
      description: "`where`: exact matches or conditions over the list's attributes (JSON, or its text)",
    })
    where?: unknown,
    @Arg('orderBy', () => String, { nullable: true, description: 'Comma-separated attributes, `-` for descending; default `id`' })
    orderBy?: string | null,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
  ): Promise<AiAgentPage> {
    return ctx.services.agents.list(ctx, { where, orderBy, page, page_size });
  }

  @Query(() => AiAgent, { description: 'One agent (GET /ai/agents/{agent_id}).' })
  aiAgent(@Ctx() ctx: RequestContext, @Arg('agent_id', () => GraphQLSafeInt) agentId: number): Promise<AiAgent> {
    return ctx.services.agents.get(ctx, agentId);
  }

  @Mutation(() => AiAgent, { description: 'Creates an agent (POST /ai/agents).' })
  createAiAgent(
    @Ctx() ctx: RequestContext,
    @Arg('name', () => String) name: string,
    @Arg('provider', () => String) provider: string,
    @Arg('provider_type', () => String) provider_type: string,
    @Arg('provider_external_id', () => String) provider_external_id: string,
    @Arg('business_id', () => GraphQLSafeInt, { nullable: true }) business_id?: number | null,
    @Arg('enabled', () => Boolean, { nullable: true }) enabled?: boolean | null,
    @Arg('credentials', () => GraphQLJSON, CREDENTIALS) credentials?: unknown,
  ): Promise<AiAgent> {
    return ctx.services.agents.create(
      ctx,
      present({ name, provider, provider_type, provider_external_id, business_id, enabled, credentials }),
    );
  }

  @Mutation(() => AiAgent, { description: 'Changes the fields given; credentials merge key by key (PATCH /ai/agents/{agent_id}).' })
  updateAiAgent(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('name', () => String, { nullable: true }) name?: string | null,
    @Arg('provider', () => String, { nullable: true }) provider?: string | null,
    @Arg('provider_type', () => String, { nullable: true }) provider_type?: string | null,
    @Arg('provider_external_id', () => String, { nullable: true }) provider_external_id?: string | null,
    @Arg('business_id', () => GraphQLSafeInt, { nullable: true, description: 'null: no business; absent: unchanged' })
    business_id?: number | null,
    @Arg('enabled', () => Boolean, { nullable: true }) enabled?: boolean | null,
    @Arg('credentials', () => GraphQLJSON, CREDENTIALS) credentials?: unknown,
    @Arg('order_messages', () => GraphQLJSON, {
      nullable: true,
      description:
        'The order notices (CONTRACT §15.5), replacing the whole object: {"STATUS": {text, template_id, locale}}; null removes them; absent: unchanged.',
    })
    order_messages?: unknown,
  ): Promise<AiAgent> {
    return ctx.services.agents.update(
      ctx,
      agentId,
      present({ name, provider, provider_type, provider_external_id, business_id, enabled, credentials, order_messages }),
    );
  }

  @Mutation(() => AiCredentialCheck, {
    description: "Reads the provider's account with the agent's credentials (POST /ai/agents/{agent_id}/credentials/check).",
  })
  checkAiAgentCredentials(@Ctx() ctx: RequestContext, @Arg('agent_id', () => GraphQLSafeInt) agentId: number): Promise<AiCredentialCheck> {
    return ctx.services.agents.checkCredentials(ctx, agentId);
  }

  @FieldResolver(() => CredentialFlags, { description: 'Which credential keys are stored (booleans); never a value.' })
  credentials(@Root() agent: AiAgent): Record<string, boolean> {
    return credentialFlags(agent.provider, agent.credential_keys);
  }
}

/** The arguments the caller gave: an absent argument is undefined and stays out (a patch leaves it unchanged). */
function present(args: AgentInput): AgentInput {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}
