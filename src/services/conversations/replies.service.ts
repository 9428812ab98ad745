import { raw } from '@mikro-orm/postgresql';
import { AiReply } from '../../entities/ai-reply.js';
import { appError, validationError, type Problem } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { ACCESS, assertAccess, assertAiAdmin, assertAiModule } from '../identity/access.js';
import { parseListQuery, toFilter, type Attributes, type ListInput } from '../shared/list-query.js';
import { refusingDuplicates } from '../shared/unique.js';
import { checkQ, containsPattern, readPage, type Page } from './conversation.service.js';
import { storedId } from './message-rules.js';
import { run } from './records.js';

const DUPLICATE_SHORTCUT: Problem = { field: 'shortcut', key: 'duplicate_reply' };

export const REPLY_ATTRIBUTES: Attributes = { id: 'id', shortcut: 'string', created_at: 'timestamp', updated_at: 'timestamp' };
export const SHORTCUT_PATTERN = '^[a-z0-9_-]{1,32}$';
export const SHORTCUT_MAX = 32;
export const REPLY_CONTENT_MAX = 4096;
/** The record's columns (not `search`, q's folded text). */
const COLUMNS = 'id, shortcut, content, created_at, updated_at';

export interface ReplyInput {
  shortcut?: unknown;
  content?: unknown;
}

/**
 * Saved replies (CONTRACT §10.6): a project's answers an operator reuses. Levels 0/2 and server keys read them;
 * level 0 and server keys write them. `shortcut` is unique in the project (the database's unique index decides
 * races: the loser gets 400 naming it).
 */
export class ReplyService {
  /** `GET /ai/replies`: paginated; `q` keeps those whose shortcut or content contains it, case and accents ignored. */
  async list(ctx: RequestContext, input: ListInput, search?: string | null): Promise<Page<AiReply>> {
    assertAiAdmin(ctx);
    const q = parseListQuery(input, REPLY_ATTRIBUTES);
    const pattern = search === undefined || search === null ? null : containsPattern(checkQ(search));
    return readPage(ctx, AiReply, q, () => {
      const filters = [
        toFilter(q.where),
        ...(pattern === null
          ? []
          : [
              {
                // `search`: both columns folded when written (Migration20261128057004)
                [raw((a: string) => `${a}.search like og_fold(?)`, [pattern])]: true,
              },
            ]),
      ].filter((f) => Object.keys(f).length);
      return filters.length ? { $and: filters } : {};
    });
  }

  /** `POST /ai/replies`. */
  async create(ctx: RequestContext, input: ReplyInput): Promise<AiReply> {
    assertWriter(ctx);
    const fields = checkReply(input, true);
    const [row] = await refusingDuplicates(
      () =>
        run(ctx.em, `insert into ai_replies (project_id, shortcut, content) values (?, ?, ?) returning ${COLUMNS}`, [
          ctx.project.id,
          fields.shortcut,
          fields.content,
        ]),
      DUPLICATE_SHORTCUT,
    );
    return ctx.em.map(AiReply, row);
  }

  /** `PATCH /ai/replies/{id}`: the fields given. */
  async update(ctx: RequestContext, id: number, input: ReplyInput): Promise<AiReply> {
    assertWriter(ctx);
    const fields = checkReply(input, false);
    const [row] = await refusingDuplicates(
      () =>
        run(
          ctx.em,
          `update ai_replies set shortcut = coalesce(?, shortcut), content = coalesce(?, content), updated_at = now()
          where project_id = ? and id = ? returning ${COLUMNS}`,
          [fields.shortcut ?? null, fields.content ?? null, ctx.project.id, storedId(id)],
        ),
      DUPLICATE_SHORTCUT,
    );
    if (!row) throw appError('ERROR_AI_REPLY_NOT_FOUND');
    return ctx.em.map(AiReply, row);
  }

  /** `DELETE /ai/replies/{id}`: the reply as it was. */
  async remove(ctx: RequestContext, id: number): Promise<AiReply> {
    assertWriter(ctx);
    const [row] = await run(ctx.em, `delete from ai_replies where project_id = ? and id = ? returning ${COLUMNS}`, [
      ctx.project.id,
      storedId(id),
    ]);
    if (!row) throw appError('ERROR_AI_REPLY_NOT_FOUND');
    return ctx.em.map(AiReply, row);
  }
}

/** Writes: level 0 and server keys (401 otherwise), then the AI module (403). */
function assertWriter(ctx: RequestContext): void {
  assertAccess(ctx, ACCESS.INTERNAL);
  assertAiModule(ctx);
}

function checkReply(input: ReplyInput, creating: boolean): { shortcut?: string; content?: string } {
  const problems: Problem[] = [];
  const { shortcut, content } = input;
  if (shortcut === undefined || shortcut === null) {
    if (creating) problems.push({ field: 'shortcut', key: 'required_field' });
  } else if (typeof shortcut !== 'string' || !new RegExp(SHORTCUT_PATTERN).test(shortcut)) {
    problems.push({ field: 'shortcut', rule: 'pattern', params: { pattern: SHORTCUT_PATTERN } });
  }
  if (content === undefined || content === null) {
    if (creating) problems.push({ field: 'content', key: 'required_field' });
  } else if (typeof content !== 'string' || content.trim() === '' || [...content].length > REPLY_CONTENT_MAX) {
    problems.push({ field: 'content', rule: 'length', params: { min: 1, max: REPLY_CONTENT_MAX } });
  } else if (content.includes('\u0000')) {
    problems.push({ field: 'content', key: 'invalid_field' });
  }
  if (problems.length) throw validationError(problems);
  return { shortcut: shortcut as string | undefined, content: content as string | undefined };
}
