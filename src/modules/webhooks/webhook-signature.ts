// The signature of a delivery, as Stripe signs: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`.
// The timestamp is signed with the body, so a receiver refusing old timestamps refuses replays.
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'Rulekeeper-Signature';

/** A new signing secret: 32 random bytes, prefixed so that secret scanners can spot it. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export function signature(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
