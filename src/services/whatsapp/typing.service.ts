import { WHATSAPP_WINDOW_MS } from '../../entities/ai-conversation.js';
import { appError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import type { CredentialCipher } from '../../platform/secrets.js';
import { ProviderError, providerAppError, type ProviderRegistry } from '../../providers/messaging.js';
import { agentCredentials, findVisibleAgent } from '../agents/agent-lookup.js';
import { checkConversationId } from '../conversations/message-rules.js';
import { run } from '../conversations/records.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';

/**
 * `POST /ai/conversations/{conversation_id}/typing` (CONTRACT §12.4): the agent runtime starts composing
 * a reply, so the customer's newest message is marked read and the typing indicator shown. At most one
 * call per conversation and second reaches the provider, whatever the number of processes: the call is
 * claimed by one statement on `ai_typing_calls` (a row per conversation with the time of its last call),
 * which a second request within the second does not win; that one answers 200 without calling.
 * While a person handles the conversation the runtime's (a server key's) call is 409, as its replies are.
 */
export class TypingService {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly cipher: CredentialCipher,
  ) {}

  async typing(ctx: RequestContext, conversationId: number): Promise<boolean> {
    assertAiAdmin(ctx);
    checkConversationId(conversationId);
    const scope = await visibleBusinessIds(ctx);
    const [c] = await run(
      ctx.em,
      `select c.id, c.status, c.handler, c.contact, c.business_id, c.agent_id, a.provider, a.enabled,
              coalesce(c.last_inbound_at > now() - make_interval(secs => ?), false) as window_open,
              (select m.external_id from ai_messages m
                where m.conversation_id = c.id and m.project_id = c.project_id and m.role = 'user' and m.external_id is not null
                order by m.created_at desc, m.id desc limit 1) as newest_inbound
         from ai_conversations c join ai_agents a on a.id = c.agent_id and a.project_id = c.project_id
        where c.project_id = ? and c.id = ?`,
      [WHATSAPP_WINDOW_MS / 1000, ctx.project.id, conversationId],
    );
    if (!c || (scope !== null && !scope.includes(c.business_id ?? -1))) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
    if (c.status !== 'active') throw appError('ERROR_AI_CONVERSATION_CLOSED');
    // the runtime's typing is refused once a person took over, as its replies are (§10.2, §13.1)
    if (c.handler === 'human' && ctx.caller.kind === 'server') throw appError('ERROR_AI_CONVERSATION_HANDED_OFF');
    if (c.provider !== 'whatsapp' || !c.contact) return false;
    if (c.window_open !== true || !c.newest_inbound) throw appError('ERROR_WHATSAPP_WINDOW_CLOSED');
    if (c.enabled !== true) return false;
    if (!(await this.claimCall(ctx, c.id))) return true;
    const agent = await findVisibleAgent(ctx, c.agent_id, { credentials: true });
    try {
      const provider = this.providers.get(agent.provider);
      if (!provider) throw new ProviderError('not_configured', `no provider "${agent.provider}"`);
      await provider.markReadTyping(agentCredentials(agent, this.cipher), c.newest_inbound);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      ctx.log.warn({ agent_id: agent.id, kind: err.kind, reason: err.reason }, 'typing indicator: provider call failed');
      throw providerAppError(err);
    }
    return true;
  }

  /** True when this request may call the provider: no call for the conversation in the last second. */
  private async claimCall(ctx: RequestContext, conversationId: number): Promise<boolean> {
    const won = await run(
      ctx.em,
      `insert into ai_typing_calls (conversation_id, project_id, called_at) values (?, ?, clock_timestamp())
       on conflict (conversation_id) do update set called_at = excluded.called_at
        where ai_typing_calls.called_at <= excluded.called_at - interval '1 second'
       returning conversation_id`,
      [conversationId, ctx.project.id],
    );
    return won.length > 0;
  }
}
