// The single-use links that let a person in (an invite, the setup link, a password reset): a token of
// 256 random bits, stored only as its SHA-256, and the console's address that takes it. The token rides
// in the address's fragment (after `#`), which browsers never send to a server: it reaches no access
// log, no proxy and no Referer header.
import { randomBytes } from 'node:crypto';
import { hashApiKey } from '../../ids.js';

/** What the console does with a link's token: accept an invite (or the setup link), or reset a password. */
export type LinkPage = 'accept' | 'reset';

/** A new token (shown once, in its link) and the hash that is stored instead. */
export function newLinkToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashApiKey(token) };
}

/** The hash a token is looked up by. */
export const linkTokenHash = (token: string): string => hashApiKey(token);

/** What a link's token looks like (32 bytes, base64url): anything else is looked up nowhere. */
export const LINK_TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';
const LINK_TOKEN = new RegExp(LINK_TOKEN_PATTERN);
export const isLinkToken = (token: string): boolean => LINK_TOKEN.test(token);

/** The console's address that takes `token`: `https://rules.example.com/#/accept?token=…`. */
export function linkTo(origin: string, page: LinkPage, token: string): string {
  return `${origin.replace(/\/+$/, '')}/#/${page}?token=${token}`;
}
