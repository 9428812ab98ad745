import { createCipheriv, createDecipheriv, createHash, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';

/** Session tokens and API keys are 256-bit random strings; storing their SHA-256 is enough. */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** One-shot `crypto.hash`: a third of createHash's cost, and it runs on every request (the caller cache's key). */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Secrets of any length compared in constant time (through their HMAC digests, which have one length). */
export function sameSecret(a: string, b: string): boolean {
  const key = 'ordergraph-compare';
  return timingSafeEqual(createHmac('sha256', key).update(a).digest(), createHmac('sha256', key).update(b).digest());
}

// argon2id (memory-hard). 19 MiB, 2 passes: the OWASP baseline.
const ARGON = { memoryCost: 19_456, timeCost: 2, parallelism: 1, algorithm: 2 /* Argon2id */ } as const;

export function hashPassword(password: string): Promise<string> {
  return argonHash(password, ARGON);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argonVerify(hash, password);
  } catch {
    return false;
  }
}

/** A fixed hash verified when the user does not exist, so unknown users cost the same time. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

/**
 * AES-256-GCM for provider credentials at rest. The key comes from CREDENTIALS_KEY (any string,
 * stretched with SHA-256); stored form: base64(iv | tag | ciphertext).
 */
export class CredentialCipher {
  private readonly key: Buffer;
  private readonly fingerprintKey: Buffer;

  constructor(secret: string) {
    if (!secret) throw new Error('CREDENTIALS_KEY is empty');
    this.key = createHash('sha256').update(secret).digest();
    // a key of its own for fingerprints (never the cipher's), the same in every process with the same secret
    this.fingerprintKey = createHmac('sha256', secret).update('ordergraph request fingerprint v1').digest();
  }

  /**
   * What the service keeps to recognise a value without keeping it (CONTRACT §11, "fingerprints
   * that reveal nothing"): HMAC-SHA256 under a key derived from CREDENTIALS_KEY, so a short secret
   * among the values cannot be guessed from it as it could from a plain SHA-256.
   */
  fingerprint(text: string): string {
    return `hmac-sha256:${createHmac('sha256', this.fingerprintKey).update(text).digest('hex')}`;
  }

  encrypt(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  decrypt<T = unknown>(stored: string): T {
    const raw = Buffer.from(stored, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as T;
  }
}
