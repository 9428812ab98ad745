import 'reflect-metadata';
import { parse, print, validate } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadOperations } from '../../src/graph/operations.js';
import { getSchema } from '../../src/graph/schema.js';
import { documentWithSelection, selectionCacheSize } from '../../src/graph/selection.js';
import { AppError } from '../../src/errors/app-error.js';

/** The params tree → selection set builder (CONTRACT §3), without HTTP. */
let base: string;
let messagesBase: string;
beforeAll(async () => {
  const ops = loadOperations(await getSchema());
  base = ops.get('AiConversations')!.source;
  messagesBase = ops.get('AiConversationMessages')!.source;
});

const conversations = (value: unknown) =>
  documentWithSelection({
    parameter: 'params',
    value,
    base,
    target: ['aiConversations', 'items'],
    relations: true,
    always: ['messages_count'],
  });
const messages = (value: unknown) =>
  documentWithSelection({ parameter: 'fields', value, base: messagesBase, target: ['aiConversationMessages', 'items'], relations: false });

function items(doc: string): string {
  const m = /items \{([\s\S]*?)\n {4}\}/.exec(doc);
  return (m?.[1] ?? '').replace(/\s+/g, ' ').trim();
}

async function rejection(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return (err as AppError).extensions;
}

describe('documentWithSelection', () => {
  it("keeps the operation's own document without params", async () => {
    expect(await conversations(undefined)).toBe(base);
    expect(await conversations('')).toBe(base);
  });

  it('builds id + fields + messages_count, relations with their id, and validates', async () => {
    const doc = await conversations(' status , agent.name,agent.provider ');
    expect(items(doc)).toBe('id messages_count status agent { id name provider }');
    expect(validate(await getSchema(), parse(doc))).toEqual([]);
    // The rest of the operation (variables, pagination) is untouched.
    expect(doc).toContain('pagination {');
    expect(doc).toContain('$page_size: Int');
    expect(doc).toContain('page_size: $page_size');
  });

  it('expands a bare relation to its scalar fields', async () => {
    const doc = await conversations('agent');
    expect(items(doc)).toContain(
      'agent { id business_id name provider provider_type provider_external_id enabled disabled_reason history order_messages created_at updated_at credentials }',
    );
  });

  it('rejects unknown fields naming them', async () => {
    for (const [value, named] of [
      ['nope', 'nope'],
      ['agent.x', 'agent.x'],
      ['status.y', 'status.y'],
      ['a-b', 'a-b'],
      ['agent.agent.id', 'agent.agent'],
    ]) {
      const ext = await rejection(conversations(value));
      expect(ext.code).toBe('ERROR_VALIDATION');
      expect(ext.messages[0]).toEqual({ key: 'unknown_field', params: { field: named } });
    }
    expect((await rejection(conversations(42))).messages[0].params).toEqual({ field: 'params' });
  });

  it('fields allow no relations', async () => {
    expect(items(await messages('role'))).toBe('id role');
    expect((await rejection(messages('conversation.id'))).messages[0].params).toEqual({ field: 'conversation.id' });
  });

  it('caches built documents in a bounded map', async () => {
    const first = await conversations('status,user_id');
    expect(await conversations('status,user_id')).toBe(first);
    for (let i = 0; i < 600; i++) await conversations(`status,${' '.repeat(i)}user_id`);
    expect(selectionCacheSize()).toBeLessThanOrEqual(500);
    expect(print(parse(await conversations('status,user_id')))).toBe(print(parse(first)));
  });
});
