/**
 * Google reCAPTCHA verification: POST `secret`, `response`, `remoteip` as a form to the verify URL;
 * the answer is `{success, score?, action?, "error-codes"?}`. v3 answers pass from score 0.5.
 */
export interface RecaptchaVerifier {
  verify(input: { token: string; type: 'v2' | 'v3'; remoteIp?: string }): Promise<boolean>;
}

export const V3_MIN_SCORE = 0.5;

export function createRecaptchaVerifier(opts: { url: string; secret: string; timeoutMs?: number }): RecaptchaVerifier {
  return {
    async verify({ token, type, remoteIp }) {
      const form = new URLSearchParams({ secret: opts.secret, response: token });
      if (remoteIp) form.set('remoteip', remoteIp);
      try {
        const res = await fetch(opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
          signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
        });
        if (!res.ok) return false;
        const body = (await res.json()) as { success?: unknown; score?: unknown };
        if (body.success !== true) return false;
        return type === 'v2' || (typeof body.score === 'number' && body.score >= V3_MIN_SCORE);
      } catch {
        return false; // unreachable or garbled verifier: the check did not pass
      }
    },
  };
}
