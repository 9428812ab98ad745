/**
 * An agent runtime written with the generated client (no casts): it reads a conversation, answers with
 * buttons, a list, an uploaded file and text, marks it seen, hands it to a person, verifies a webhook's
 * signature and reads the event stream. test/client/runtime.test.ts runs it against a real `serve`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createOrderGraphClient, type EventOf, type OrderGraphClient } from './client';

export interface RuntimeOptions {
  baseUrl: string;
  apiKey: string;
  project: string;
  conversationId: number;
  /** The file to upload and send (a PDF menu). */
  menu: { bytes: Uint8Array<ArrayBuffer>; filename: string; type: string };
}

export interface RuntimeReport {
  contact: string | null;
  sent: number[];
  uploaded: string;
  unread: number;
  handler: 'ai' | 'human';
  firstEvent: string | null;
}

export async function runAgent(opts: RuntimeOptions): Promise<RuntimeReport> {
  const client = createOrderGraphClient(opts.baseUrl, { apiKey: opts.apiKey });
  const path = { lang: 'en', project: opts.project, conversation_id: opts.conversationId };

  const conversation = await client.GET('/v400/{lang}/{project}/ai/conversations/{conversation_id}', { params: { path } });
  if (!conversation.data) throw new Error(`read: ${conversation.error?.code ?? conversation.response.status}`);
  const contact = conversation.data.result.contact ?? null;

  const messages = await client.GET('/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages', {
    params: { path, query: { orderBy: '-id', page_size: 5 } },
  });
  if (!messages.data) throw new Error(`messages: ${messages.error?.code ?? messages.response.status}`);
  const lastUser = messages.data.result.find((m) => m.role === 'user');
  const sent: number[] = [];

  const buttons = await client.POST('/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages', {
    params: { path },
    body: {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'button',
        body: { text: `You wrote: ${lastUser?.content ?? '…'}. Delivery or pick-up?` },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'delivery', title: 'Delivery' } },
            { type: 'reply', reply: { id: 'pickup', title: 'Pick-up' } },
          ],
        },
      },
    },
  });
  if (!buttons.data) throw new Error(`buttons: ${buttons.error?.code ?? buttons.response.status}`);
  sent.push(buttons.data.result.id);

  const list = await client.POST('/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages', {
    params: { path },
    body: {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'list',
        body: { text: 'Our menu' },
        action: { button: 'See dishes', sections: [{ title: 'Mains', rows: [{ id: 'paella', title: 'Paella', description: 'For two' }] }] },
      },
    },
  });
  if (!list.data) throw new Error(`list: ${list.error?.code ?? list.response.status}`);
  sent.push(list.data.result.id);

  const upload = await client.POST('/v400/{lang}/{project}/ai/media', {
    params: { path: { lang: 'en', project: opts.project } },
    body: { file: new Blob([opts.menu.bytes], { type: opts.menu.type }) },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append('file', body.file, opts.menu.filename);
      return form;
    },
  });
  if (!upload.data) throw new Error(`upload: ${upload.error?.code ?? upload.response.status}`);
  const mediaId = upload.data.result.id;

  const file = await client.POST('/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages', {
    params: { path },
    body: { role: 'assistant', type: 'document', payload: { media_id: mediaId, filename: opts.menu.filename, caption: 'The menu' } },
  });
  if (!file.data) throw new Error(`document: ${file.error?.code ?? file.response.status}`);
  sent.push(file.data.result.id);

  const text = await client.POST('/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages', {
    params: { path, header: { 'Idempotency-Key': `runtime-${opts.conversationId}-text` } },
    // a text needs no `type` (the plainest call of the API)
    body: { role: 'assistant', content: 'A person will take it from here.' },
  });
  if (!text.data) throw new Error(`text: ${text.error?.code ?? text.response.status}`);
  sent.push(text.data.result.id);

  const seen = await client.POST('/v400/{lang}/{project}/ai/conversations/{conversation_id}/seen', { params: { path }, body: {} });
  if (!seen.data) throw new Error(`seen: ${seen.error?.code ?? seen.response.status}`);

  const handoff = await client.POST('/v400/{lang}/{project}/ai/conversations/{conversation_id}/handoff', {
    params: { path },
    body: { handler: 'human' },
  });
  if (!handoff.data) throw new Error(`handoff: ${handoff.error?.code ?? handoff.response.status}`);

  return {
    contact,
    sent,
    uploaded: mediaId,
    unread: seen.data.result.unread_count,
    handler: handoff.data.result.handler,
    firstEvent: await firstStreamEvent(client, opts.project),
  };
}

/** Reads the event stream from its start and returns the first event's type (SSE over openapi-fetch's stream). */
async function firstStreamEvent(client: OrderGraphClient, project: string): Promise<string | null> {
  const controller = new AbortController();
  const res = await client.GET('/v400/{lang}/{project}/ai/events', {
    params: { path: { lang: 'en', project }, query: { last_event_id: '0' } },
    parseAs: 'stream',
    signal: controller.signal,
  });
  const stream = res.data;
  if (!stream) return null;
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return null;
      text += value;
      const data = /^data: (.+)$/m.exec(text);
      if (data) {
        const event: EventOf<'message.created'> = JSON.parse(data[1]);
        return event.type;
      }
    }
  } finally {
    controller.abort();
  }
}

/** A webhook delivery is ours when X-OrderGraph-Signature is sha256= and the HMAC of `timestamp.body` under the secret. */
export function verifyWebhook(secret: string, headers: Record<string, string | undefined>, rawBody: string): boolean {
  const timestamp = headers['x-ordergraph-timestamp'];
  const given = Buffer.from(headers['x-ordergraph-signature'] ?? '');
  if (!timestamp) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A verified delivery's event, typed by the document's `webhooks`. */
export function readDelivery(rawBody: string): EventOf<'message.created'> | EventOf<'conversation.handoff'> {
  const event: EventOf<'message.created'> | EventOf<'conversation.handoff'> = JSON.parse(rawBody);
  return event;
}
