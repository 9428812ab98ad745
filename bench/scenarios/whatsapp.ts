import { createHmac, randomBytes } from 'node:crypto';
import type { PrepareScenarios } from '../types.js';

const PROJECT = 'bench-whatsapp';
const AGENT_ID = 9001;
const PHONE_NUMBER_ID = 'bench-phone-9001';
const APP_SECRET = 'bench-whatsapp-app-secret';
const CONTACTS = 1_000;

/**
 * Meta's notifications (CONTRACT §9.3): `POST /ai/webhooks/whatsapp`, each a signed delivery of
 * one text message with a fresh message id, from 1,000 distinct contacts in turn (so the first
 * thousand open a conversation each, the rest join theirs). Target: ≥ 300 deliveries/s at 10
 * connections, p99 ≤ 50 ms. And the business's echoes (CONTRACT §13.1) to the same contacts: p99 ≤ 50 ms
 * at 10 connections (issue 55).
 */
export const prepare: PrepareScenarios = async ({ load }) => {
  await load({
    projects: [
      {
        code: PROJECT,
        name: 'Bench WhatsApp',
        ai_enabled: true,
        agents: [
          {
            id: AGENT_ID,
            name: 'Bench WhatsApp',
            provider: 'whatsapp',
            provider_type: 'chat',
            provider_external_id: 'bench-whatsapp',
            enabled: true,
            credentials: {
              waba_id: 'bench-waba',
              phone_number_id: PHONE_NUMBER_ID,
              access_token: 'bench-token',
              app_secret: APP_SECRET,
              verify_token: 'bench-verify',
            },
          },
        ],
      },
    ],
  });
  const run = randomBytes(4).toString('hex'); // message ids never repeat across runs on one database
  let n = 0;
  const next = () => {
    n++;
    const from = String(34_600_000_000 + (n % CONTACTS));
    return signed({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'bench-waba',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001111', phone_number_id: PHONE_NUMBER_ID },
                contacts: [{ wa_id: from, profile: { name: `Contact ${from}` } }],
                messages: [
                  {
                    from,
                    id: `wamid.bench.${run}.${n}`,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: `message ${n}` },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
  };
  function signed(payload: unknown) {
    const body = JSON.stringify(payload);
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`,
      },
    };
  }
  let e = 0;
  /** CONTRACT §13.1: an echo from the business's phone to one of the same contacts (the first to each takes its conversation over). */
  const nextEcho = () => {
    e++;
    const to = String(34_600_000_000 + (e % CONTACTS));
    return signed({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'bench-waba',
          changes: [
            {
              field: 'smb_message_echoes',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001111', phone_number_id: PHONE_NUMBER_ID },
                message_echoes: [
                  {
                    from: '15550001111',
                    to,
                    id: `wamid.bench-echo.${run}.${e}`,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: `from the phone ${e}` },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
  };
  return [
    { name: 'whatsapp: signed notification, 1 message', method: 'POST', path: `/v400/en/${PROJECT}/ai/webhooks/whatsapp`, ...next(), next },
    {
      name: 'whatsapp: signed echo from the business app (§13.1)',
      method: 'POST',
      path: `/v400/en/${PROJECT}/ai/webhooks/whatsapp`,
      ...nextEcho(),
      next: nextEcho,
    },
  ];
};
