// ETag / If-Match (412) and Idempotency-Key (replay, 409) on both databases.
import { describe, expect, it } from 'vitest';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const redirect = (name: string) => ({
  name,
  ruleType: 'Redirect',
  pairs: [
    {
      source: { key: 'Url', operator: 'Contains', value: 'a' },
      destinationType: 'url',
      destination: 'https://b',
    },
  ],
});

forEachDatabase((db) => {
  const t = useTestApp({ db });

  describe('ETag and If-Match', () => {
    it('gives every single-object response an ETag that changes with each write', async () => {
      const made = await t.call('POST', '/v1/rules', { body: redirect('etag') });
      const read = await t.call('GET', `/v1/rules/${made.body.data.id}`);
      expect(made.headers.etag).toBe(`"${made.body.data.modificationDate}"`);
      expect(read.headers.etag).toBe(made.headers.etag);
      const changed = await t.call('PUT', `/v1/rules/${made.body.data.id}`, { body: { status: 'Active' } });
      expect(changed.headers.etag).toBe(`"${changed.body.data.modificationDate}"`);
      expect(changed.headers.etag).not.toBe(made.headers.etag);
      const group = await t.call('POST', '/v1/groups', { body: { name: 'g' } });
      expect(group.headers.etag).toBe(`"${group.body.data.modificationDate}"`);
    });

    it('refuses a PUT or DELETE with a stale If-Match and changes nothing', async () => {
      const made = await t.call('POST', '/v1/rules', { body: redirect('stale') });
      const path = `/v1/rules/${made.body.data.id}`;
      const stale = made.headers.etag as string;
      const first = await t.call('PUT', path, { body: { name: 'first' }, headers: { 'if-match': stale } });
      expect(first.status).toBe(200);

      const lost = await t.call('PUT', path, { body: { name: 'second' }, headers: { 'if-match': stale } });
      expect(lost.status).toBe(412);
      expect(lost.body).toMatchObject({
        success: false,
        message: 'Precondition failed',
        code: 'PRECONDITION_FAILED',
      });
      const del = await t.call('DELETE', path, { headers: { 'if-match': stale } });
      expect(del.status).toBe(412);

      const now = await t.call('GET', path);
      expect(now.body.data.name).toBe('first');
      expect(now.headers.etag).toBe(first.headers.etag);
      expect(
        (await t.call('DELETE', path, { headers: { 'if-match': now.headers.etag as string } })).status,
      ).toBe(200);
    });

    it('accepts If-Match * and a list containing the current tag, on groups too', async () => {
      const group = await t.call('POST', '/v1/groups', { body: { name: 'g' } });
      const path = `/v1/groups/${group.body.data.id}`;
      const star = await t.call('PUT', path, { body: { isFavourite: true }, headers: { 'if-match': '*' } });
      expect(star.status).toBe(200);
      const stale = await t.call('PUT', path, {
        body: { name: 'x' },
        headers: { 'if-match': group.headers.etag as string },
      });
      expect(stale.status).toBe(412);
      const listed = await t.call('DELETE', path, { headers: { 'if-match': `"1", ${star.headers.etag}` } });
      expect(listed.status).toBe(200);
    });

    it('checks access before the precondition: another workspace gets 403', async () => {
      const made = await t.call('POST', '/v1/rules', { body: redirect('mine') });
      const other = await t.call('PUT', `/v1/rules/${made.body.data.id}`, {
        key: t.outsider.key,
        body: { name: 'x' },
        headers: { 'if-match': '"1"' },
      });
      expect(other.status).toBe(403);
    });
  });

  describe('Idempotency-Key', () => {
    it('answers a retried POST with the first response and creates one object', async () => {
      const headers = { 'idempotency-key': `retry-${db}-1` };
      const first = await t.call('POST', '/v1/rules', { body: redirect('once'), headers });
      const again = await t.call('POST', '/v1/rules', { body: redirect('once'), headers });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const list = await t.call('GET', '/v1/rules?search=once');
      expect(list.body.total).toBe(1);
    });

    it('refuses the same key with a different body with 409, creating nothing', async () => {
      const headers = { 'idempotency-key': `retry-${db}-2` };
      await t.call('POST', '/v1/groups', { body: { name: 'idem-a' }, headers });
      const other = await t.call('POST', '/v1/groups', { body: { name: 'idem-b' }, headers });
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      const groups = await t.call('GET', '/v1/groups');
      expect(groups.body.data.filter((g: { name: string }) => g.name === 'idem-b')).toEqual([]);
    });

    it('keeps keys apart per workspace and per route', async () => {
      const headers = { 'idempotency-key': `shared-${db}` };
      const mine = await t.call('POST', '/v1/groups', { body: { name: 'k' }, headers });
      const theirs = await t.call('POST', '/v1/groups', {
        body: { name: 'k' },
        headers,
        key: t.outsider.key,
      });
      expect(theirs.status).toBe(201);
      expect(theirs.body.data.id).not.toBe(mine.body.data.id);
      const otherRoute = await t.call('POST', '/v1/rules', { body: redirect('k'), headers });
      expect(otherRoute.status).toBe(409);
    });

    it('does not remember a rejected request, and rejects a malformed key', async () => {
      const headers = { 'idempotency-key': `fix-${db}` };
      const bad = await t.call('POST', '/v1/rules', { body: { ...redirect('fix'), status: 'On' }, headers });
      expect(bad.status).toBe(400);
      const good = await t.call('POST', '/v1/rules', { body: redirect('fix'), headers });
      expect(good.status).toBe(201);
      const malformed = await t.call('POST', '/v1/rules', {
        body: redirect('fix'),
        headers: { 'idempotency-key': 'x'.repeat(256) },
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
    });

    it('creates one object when the same request arrives several times at once', async () => {
      const headers = { 'idempotency-key': `burst-${db}` };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => t.call('POST', '/v1/rules', { body: redirect('burst'), headers })),
      );
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
      expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
      expect((await t.call('GET', '/v1/rules?search=burst')).body.total).toBe(1);
    });
  });
});
