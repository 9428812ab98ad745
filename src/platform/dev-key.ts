import { CredentialCipher } from './secrets.js';

/** The credentials key used when CREDENTIALS_KEY is unset outside production (README: configuration). */
const DEV_CREDENTIALS_KEY = 'ordergraph-development-credentials-key';

/** The cipher of provider credentials for a configured key (empty: the development key). */
export function credentialCipher(configuredKey: string): CredentialCipher {
  return new CredentialCipher(configuredKey || DEV_CREDENTIALS_KEY);
}
