// Invite and reset links by mail, against a real SMTP server (smtp-server, the maintained server of
// nodemailer's authors) started here on a loopback port: no mock of SMTP. The mail arrives with the
// link, the link's token works, a forged Host header does not choose where a mailed link leads, and
// "forgot password" mails nothing for an unknown address while answering it alike.
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPerson, PASSWORD } from '../helpers/people.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

const PUBLIC_URL = 'https://rules.example.test';
const SMTP_USER = 'rulekeeper';
const SMTP_PASSWORD = 'smtp-secret-of-the-mail-server';
const NEW_PASSWORD = 'a password from the mailed link';

interface Received {
  from: string;
  to: string[];
  text: string;
}

/** The text of a mail as sent, its quoted-printable soft breaks and escapes undone. */
const decoded = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The link in a mail, and its token. */
function linkIn(mail: Received, page: 'accept' | 'reset'): { link: string; token: string } {
  const match = new RegExp(`(https://[^\\s]+/#/${page}\\?token=([A-Za-z0-9_-]{43}))`).exec(mail.text);
  if (!match) throw new Error(`no ${page} link in:\n${mail.text}`);
  return { link: match[1] as string, token: match[2] as string };
}

/** An SMTP server on a free loopback port that keeps what it receives, with a password for senders. */
async function startSmtp() {
  const received: Received[] = [];
  const waiting: (() => void)[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: SMTP_USER });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        raw += chunk;
      });
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          text: decoded(raw),
        });
        for (const wake of waiting.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    port,
    received,
    /** The first mail to `to` from `since` on, waited for (bounded). */
    async mailTo(to: string, since = 0): Promise<Received> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = received.slice(since).find((mail) => mail.to.includes(to));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

forEachDatabase((db) => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let t: TestApp;
  let log = '';
  let adminKey = '';
  let serial = 0;
  const email = (who: string) => `${who}.${db}.${++serial}@example.com`;

  beforeAll(async () => {
    smtp = await startSmtp();
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    t = await buildTestApp({
      db,
      env: {
        SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
        PUBLIC_URL,
        MAIL_FROM: 'Rulekeeper <rules@example.test>',
      },
      logger: { level: 'trace', stream },
    });
    adminKey = (await t.keysService.issue('acme', 'dave', { scope: 'admin', expiresAt: null, name: null }))
      .key;
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  describe('an invite', () => {
    it('is mailed with its link, to PUBLIC_URL whatever Host the request named, and the link works', async () => {
      const to = email('bob');
      const made = await t.call('POST', '/v1/invites', {
        key: adminKey,
        body: { email: to, role: 'editor' },
        headers: { host: 'evil.example' },
      });
      expect(made.status).toBe(201);
      expect(made.body.data.mailed).toBe(true);
      const mail = await smtp.mailTo(to);
      expect(mail.from).toBe('rules@example.test');
      expect(mail.text).toMatch(/Subject: You are invited to the Rulekeeper workspace acme/);
      const { link, token } = linkIn(mail, 'accept');
      expect(link.startsWith(`${PUBLIC_URL}/#/accept?token=`)).toBe(true);
      expect(made.body.data.link).toBe(link);
      const accepted = await t.call('POST', '/v1/invites/accept', {
        key: null,
        body: { token, password: NEW_PASSWORD },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data.workspaces).toEqual([
        expect.objectContaining({ name: 'acme', role: 'editor' }),
      ]);
      // Over HTTPS (PUBLIC_URL), the cookie is the secure one.
      expect(String(accepted.headers['set-cookie'])).toMatch(/^__Host-rk_session=.*Secure/);
    });
  });

  describe('forgot password', () => {
    it('mails a working link to a known address, nothing to an unknown one, answering both alike', async () => {
      const person = await addPerson(t, email('carol'));
      const stranger = email('nobody');
      const before = smtp.received.length;
      const answers = [];
      for (const address of [stranger, person.email]) {
        const reply = await t.call('POST', '/v1/password/forgot', {
          key: null,
          body: { email: address },
          headers: { host: 'evil.example' },
        });
        expect(reply.status).toBe(202);
        const { requestId: _, ...rest } = reply.body;
        answers.push(rest);
      }
      expect(answers[0]).toEqual(answers[1]);
      const mail = await smtp.mailTo(person.email, before);
      expect(mail.text).toMatch(/Subject: Reset your Rulekeeper password/);
      const { link, token } = linkIn(mail, 'reset');
      expect(link.startsWith(`${PUBLIC_URL}/#/reset?token=`)).toBe(true);
      // The unknown address's work ended long before the known one's mail was sent.
      expect(smtp.received.slice(before).flatMap((m) => m.to)).toEqual([person.email]);

      // Asked again at once: no second mail (one every 5 minutes), the same answer.
      const again = await t.call('POST', '/v1/password/forgot', { key: null, body: { email: person.email } });
      expect(again.status).toBe(202);

      const reset = await t.call('POST', '/v1/password/reset', {
        key: null,
        body: { token, password: NEW_PASSWORD },
      });
      expect(reset.body).toEqual({ success: true, message: 'Password changed' });
      const signIn = await t.call('POST', '/v1/session', {
        key: null,
        body: { email: person.email, password: NEW_PASSWORD },
      });
      expect(signIn.status).toBe(200);
      const old = await t.call('POST', '/v1/session', {
        key: null,
        body: { email: person.email, password: PASSWORD },
      });
      expect(old.status).toBe(401);
      expect(smtp.received.slice(before).flatMap((m) => m.to)).toEqual([person.email]);
    });

    it("mails an admin's reset link to the member, leading to PUBLIC_URL", async () => {
      const person = await addPerson(t, email('dan'));
      const before = smtp.received.length;
      const made = await t.call('POST', `/v1/members/${person.id}/reset`, { key: adminKey });
      expect(made.status).toBe(201);
      expect(made.body.data.mailed).toBe(true);
      const { token } = linkIn(await smtp.mailTo(person.email, before), 'reset');
      expect(made.body.data.link).toBe(`${PUBLIC_URL}/#/reset?token=${token}`);
    });
  });

  it("logs neither the SMTP server's password nor any link", () => {
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(SMTP_PASSWORD);
    for (const mail of smtp.received) {
      const token = /token=([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1] as string;
      expect(log).not.toContain(token);
    }
  });
});
