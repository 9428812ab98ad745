/** The credentials key used when CREDENTIALS_KEY is unset outside production (README: configuration). */
export const DEV_CREDENTIALS_KEY = 'ordergraph-development-credentials-key';
