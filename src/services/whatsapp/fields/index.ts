import type { FieldReceiver } from '../webhook-items.js';
import { receiveAccountUpdate } from './account-update.js';
import { receiveEchoes } from './echoes.js';
import { receiveHistory } from './history.js';
import { receiveMessages } from './messages.js';
import { receiveStateSync } from './state-sync.js';

/**
 * The receiver of each webhook `field` Meta may send (CONTRACT §9.3, §13): one small module per
 * field; `history` and `smb_app_state_sync` (§13.3, §13.4) are further entries.
 */
export const FIELDS: Readonly<Record<string, FieldReceiver>> = {
  messages: receiveMessages,
  smb_message_echoes: receiveEchoes,
  account_update: receiveAccountUpdate,
  smb_app_state_sync: receiveStateSync,
  history: receiveHistory,
};
