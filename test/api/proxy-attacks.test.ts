// The proxy attacked as reported: another machine coming in by each way (HTTP, CONNECT, a WebSocket
// upgrade), hop-by-hop headers both ways, --allow-files escaped through a symbolic link or an encoded
// slash, --allow-code code that throws from a getter, loops in microtasks or eats memory, and HTTPS
// tunnels to malformed or hostile addresses, and clients that leave in the middle of them. Each
// attack gets its documented answer and the proxy keeps serving. Real clients and servers on loopback.
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { EXTERNAL, rawExchange, type TestProxy, testProxy, viaProxy } from '../helpers/test-proxy.js';

let upstream: Server;
let upstreamUrl: string;
let proxy: TestProxy;
const seen: Record<string, string | string[] | undefined>[] = [];

beforeAll(async () => {
  // Echoes the headers it received; answers with hop-by-hop headers of its own.
  upstream = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () =>
      res
        .writeHead(200, [
          'Content-Type',
          'text/plain',
          'Connection',
          'x-upstream-secret',
          'X-Upstream-Secret',
          'hop',
          'Keep-Alive',
          'timeout=99',
          'Proxy-Connection',
          'keep-alive',
          'Trailer',
          'x-checksum',
          'X-Visible',
          'end-to-end',
        ])
        .end('answer'),
    );
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  proxy = await testProxy();
});

afterAll(async () => {
  await proxy?.stop();
  upstream?.close();
});

describe.skipIf(!EXTERNAL)('another machine is refused by every way in, unless --allow-remote', () => {
  let sockets: WebSocketServer;
  let wsPort: number;
  let upgrades = 0;
  beforeAll(async () => {
    sockets = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    sockets.on('connection', () => upgrades++);
    await once(sockets, 'listening');
    wsPort = (sockets.address() as { port: number }).port;
  });
  afterAll(() => sockets?.close());

  const upgrade = (port: number, host = '127.0.0.1') =>
    `GET http://${host}:${port}/internal HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: Upgrade\r\n` +
    'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

  it('a WebSocket upgrade reaches a loopback-only service from this machine (the route the attack takes)', async () => {
    const answer = await rawExchange('127.0.0.1', proxy.port, upgrade(wsPort), /\r\n\r\n/);
    expect(answer).toMatch(/^HTTP\/1\.1 101/);
  });

  it('refuses a WebSocket upgrade, a CONNECT and a plain request from another machine with 403', async () => {
    const before = upgrades;
    const ws = await rawExchange(EXTERNAL as string, proxy.port, upgrade(wsPort));
    expect(ws).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(ws).toMatch(/--allow-remote/);
    const tunnel = await rawExchange(
      EXTERNAL as string,
      proxy.port,
      `CONNECT 127.0.0.1:${wsPort} HTTP/1.1\r\nHost: 127.0.0.1:${wsPort}\r\n\r\n`,
    );
    expect(tunnel).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    const plain = await viaProxy(proxy.port, `${upstreamUrl}/internal`, { host: EXTERNAL as string });
    expect(plain.status).toBe(403);
    expect(upgrades).toBe(before);
    // The proxy still serves this machine.
    expect((await viaProxy(proxy.port, `${upstreamUrl}/after`)).status).toBe(200);
  });

  it('serves another machine when started with --allow-remote', async () => {
    // mockttp reads a remote client's 127.0.0.1 as that client's own machine: the service it reaches
    // listens on this machine's network address.
    const open = await testProxy({ allowRemote: true });
    const shared = new WebSocketServer({ host: EXTERNAL, port: 0 });
    try {
      await once(shared, 'listening');
      const port = (shared.address() as { port: number }).port;
      const answer = await rawExchange(EXTERNAL as string, open.port, upgrade(port, EXTERNAL), /\r\n\r\n/);
      expect(answer).toMatch(/^HTTP\/1\.1 101/);
    } finally {
      shared.close();
      await open.stop();
    }
  });
});

describe('hop-by-hop headers are not forwarded, either way', () => {
  const HOP_BY_HOP = ['keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade'];

  it.each([
    ['no rule acts', []],
    ['a Headers rule acts', [{ ruleType: 'Headers', pairs: [headersPair('/hop')] }]],
  ])('when %s', async (_, rules) => {
    proxy.setRules(rules);
    seen.length = 0;
    const answer = await viaProxy(proxy.port, `${upstreamUrl}/hop`, {
      method: 'POST',
      headers: {
        Connection: 'keep-alive, x-client-secret',
        'X-Client-Secret': 'hop',
        'Keep-Alive': 'timeout=5',
        'Proxy-Connection': 'keep-alive',
        TE: 'trailers',
        Trailer: 'x-checksum',
        Upgrade: 'h2c',
        'X-Visible': 'end-to-end',
      },
      body: 'payload',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('answer');
    const sent = seen[0] ?? {};
    for (const name of [...HOP_BY_HOP, 'x-client-secret']) expect(sent[name], name).toBeUndefined();
    expect(sent['x-visible']).toBe('end-to-end');
    const names = answer.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    for (const name of ['proxy-connection', 'te', 'trailer', 'upgrade', 'x-upstream-secret'])
      expect(names, name).not.toContain(name);
    // Keep-Alive and Connection on the answer are the proxy's own (Node's), not the upstream's.
    expect(answer.headers['keep-alive']).not.toBe('timeout=99');
    expect(String(answer.headers.connection ?? '')).not.toMatch(/secret/);
    expect(answer.headers['x-visible']).toBe('end-to-end');
    // The proxy frames its own hop: the answer has a length or chunks, and the connection stays open
    // as the client asked (not an answer ended by closing the connection).
    expect(answer.headers['transfer-encoding'] ?? answer.headers['content-length']).toBeDefined();
    expect(answer.headers.connection).toBe('keep-alive');
    if (rules.length > 0) expect(answer.headers['x-added']).toBe('yes');
  });
});

describe('a chunked body goes on framed, never as a request of its own', () => {
  // Transfer-Encoding is hop-by-hop: the proxy drops the client's and must frame the body again on its
  // own hop. Sent unframed, the body below would reach the upstream as a second request.
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: upstream\r\n\r\n';
  const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

  it.each([
    ['no rule acts', []],
    ['a Headers rule acts', [{ ruleType: 'Headers', pairs: [headersPair('/upload')] }]],
  ])('when %s', async (_, rules) => {
    proxy.setRules(rules);
    const received: { url: string; body: string }[] = [];
    const recorder = createServer((req, res) => {
      let body = '';
      req.on('data', (data: Buffer) => (body += data.toString('latin1')));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body });
        res.end('stored');
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (recorder.address() as { port: number }).port;
      const answer = await rawExchange(
        '127.0.0.1',
        proxy.port,
        `POST http://127.0.0.1:${port}/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
          `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk(smuggled)}0\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(answer).toMatch(/stored$/);
      expect(received).toEqual([{ url: '/upload', body: smuggled }]);
    } finally {
      recorder.close();
    }
  });
});

function headersPair(url: string) {
  return {
    source: { key: 'Url', operator: 'Contains', value: url },
    // As the rules are kept (the API also takes one set alone).
    modifications: [{ Request: [], Response: [{ header: 'X-Added', type: 'Add', value: 'yes' }] }],
  };
}

describe('--allow-files serves only files whose real path is inside its folder, and shows no path', () => {
  const root = mkdtempSync(join(tmpdir(), 'rulekeeper-files-attack-'));
  const dir = join(root, 'served');
  let files: TestProxy;
  beforeAll(async () => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'mock.json'), '{"mocked":true}');
    writeFileSync(join(root, 'secret.txt'), 'TOP SECRET');
    symlinkSync(join(root, 'secret.txt'), join(dir, 'escape.json'));
    symlinkSync(join(dir, 'mock.json'), join(dir, 'alias.json'));
    files = await testProxy({ allowFilesDir: dir });
  });
  afterAll(async () => {
    await files?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const redirect = (destination: string) => ({
    ruleType: 'Redirect',
    pairs: [
      {
        source: { key: 'Url', operator: 'Contains', value: '/local' },
        destinationType: 'map_local',
        destination,
      },
    ],
  });

  it('refuses a symbolic link that leads out of the folder with 403, and serves one that stays in', async () => {
    files.setRules([redirect('escape.json')]);
    const escaped = await viaProxy(files.port, `${upstreamUrl}/local`);
    expect(escaped.status).toBe(403);
    expect(escaped.body.toString()).not.toContain('TOP SECRET');
    expect(escaped.body.toString()).not.toContain(root);
    files.setRules([redirect('alias.json')]);
    const alias = await viaProxy(files.port, `${upstreamUrl}/local`);
    expect(alias.status).toBe(200);
    expect(alias.body.toString()).toBe('{"mocked":true}');
  });

  it.each(['..%2f..%2fsecret.txt', '..%2fsecret.txt', '../secret.txt', 'missing.json'])(
    'answers 404 for %s, with no path, stack or 500',
    async (destination) => {
      files.setRules([redirect(destination)]);
      const answer = await viaProxy(files.port, `${upstreamUrl}/local`);
      expect(answer.status).toBe(404);
      const text = answer.body.toString();
      expect(text).toBe("the rule's local file is not in the --allow-files folder\n");
      expect(text).not.toContain(tmpdir());
    },
  );
});

describe('--allow-code runs code in a worker that ends whatever it does', () => {
  let coded: TestProxy;
  beforeAll(async () => {
    coded = await testProxy({ allowCode: true, codeTimeoutMs: 500, codeMemoryMb: 32 });
  });
  afterAll(() => coded?.stop());

  const response = (code: string) => ({
    ruleType: 'Response',
    pairs: [
      {
        source: { key: 'Url', operator: 'Contains', value: '/coded' },
        type: 'code',
        value: code,
        statusCode: 200,
        resourceType: 'restApi',
      },
    ],
  });

  it.each([
    [
      'throws from a getter of its answer',
      'function f(a) { return { get x() { throw new Error("getter"); } }; }',
      /getter/,
    ],
    [
      'loops in a getter of its answer',
      'function f(a) { return { get x() { for (;;) {} } }; }',
      /timed out|stopped/,
    ],
    [
      'loops in microtasks',
      'function f(a) { const g = () => Promise.resolve().then(g); g(); return "x"; }',
      /timed out|stopped/,
    ],
    [
      'loops on a then getter',
      'function f(a) { return { get then() { for (;;) {} } }; }',
      /timed out|stopped/,
    ],
    [
      'waits on an atomic forever',
      'function f(a) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); }',
      /timed out|stopped/,
    ],
  ])('code that %s gets a 500 saying so, and the proxy serves the next request', async (_, code, said) => {
    coded.setRules([response(code)]);
    const answer = await viaProxy(coded.port, `${upstreamUrl}/coded`);
    expect(answer.status).toBe(500);
    expect(answer.body.toString()).toMatch(said);
    coded.setRules([response('function f(a) { return "fine: " + a.response; }')]);
    const next = await viaProxy(coded.port, `${upstreamUrl}/coded`);
    expect(next.status).toBe(200);
    expect(next.body.toString()).toBe('fine: answer');
  });

  it('stops code that eats memory with a 500 saying so, and serves the next request', async () => {
    // Its own proxy, with a time limit a loaded machine does not reach before 32 MB are filled (the
    // 500 ms above could be, and the answer then said the code timed out). The worker's death is seen
    // when the time limit ends, so the answer comes after 5 s; without the memory limit the code would
    // still be allocating then, and the answer would be the evaluation's own timeout.
    const hungry = await testProxy({ allowCode: true, codeTimeoutMs: 5_000, codeMemoryMb: 32 });
    try {
      hungry.setRules([
        response('function f(a) { const all = []; for (;;) all.push(new Array(1e6).fill(a)); }'),
      ]);
      const answer = await viaProxy(hungry.port, `${upstreamUrl}/coded`);
      expect(answer.status).toBe(500);
      expect(answer.body.toString()).toMatch(/stopped: .* more than 32 MB/);
      hungry.setRules([response('function f(a) { return "fine: " + a.response; }')]);
      const next = await viaProxy(hungry.port, `${upstreamUrl}/coded`);
      expect(next.status).toBe(200);
      expect(next.body.toString()).toBe('fine: answer');
    } finally {
      await hungry.stop();
    }
  });
});

describe('HTTPS tunnels to addresses: malformed targets and hostile clients leave the proxy serving', () => {
  /** A CONNECT tunnel to `target`, open. */
  async function tunnel(target: string): Promise<Socket> {
    const connecting = request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: target });
    connecting.end();
    const [answer, socket] = (await once(connecting, 'connect')) as [{ statusCode: number }, Socket];
    expect(answer.statusCode).toBe(200);
    return socket;
  }

  /** TLS over a tunnel to `target`: the names of the certificate the proxy answered with, or the error. */
  async function namesInTunnel(target: string, options: ConnectionOptions): Promise<string> {
    const secure = tlsConnect({ socket: await tunnel(target), ...options });
    return new Promise((resolve) => {
      secure.once('secureConnect', () => {
        resolve(secure.getPeerCertificate().subjectaltname ?? '');
        secure.destroy();
      });
      secure.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
  }

  const servesNext = async () =>
    expect((await viaProxy(proxy.port, `${upstreamUrl}/after`)).status).toBe(200);

  it.each([
    '[::1',
    '::1:443',
    '[fe80::1%eth0]:443',
    '[fe80::1%25eth0]:443',
    '999.1.1.1:443',
    '1.2.3.4.5:443',
    '[]:443',
    '[127.0.0.1]:443',
    `[${'f'.repeat(4000)}]:443`,
  ])("a tunnel to %j, no address, is mockttp's as before (its default certificate)", async (target) => {
    expect(await namesInTunnel(target, { rejectUnauthorized: false })).toBe('DNS:localhost');
    await servesNext();
  });

  it('a name sent in a tunnel to an address gets a certificate for the name, which the client takes', async () => {
    const names = await namesInTunnel('127.0.0.1:443', { servername: 'shop.example.com', ca: proxy.ca });
    expect(names).toBe('DNS:shop.example.com');
    await servesNext();
  });

  it("a name no certificate can carry gets the address's certificate, which the client refuses by name", async () => {
    const target = '127.0.0.1:443';
    expect(await namesInTunnel(target, { servername: 'bad_name.example', ca: proxy.ca })).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID',
    );
    const names = await namesInTunnel(target, { servername: 'bad_name.example', rejectUnauthorized: false });
    expect(names).toBe('IP Address:127.0.0.1');
    await servesNext();
  });

  it('clients that leave while their certificate is made, or send no TLS worth the name, harm nothing', async () => {
    // A new address each time, so that each waits for a certificate to be made.
    for (let i = 1; i <= 20; i++) {
      const socket = await tunnel(`127.0.1.${i}:443`);
      socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3]));
      if (i % 2) socket.destroy();
      else socket.end(Buffer.from('garbage after a TLS record header'));
    }
    await servesNext();
    expect(await namesInTunnel('127.0.1.21:443', { host: '127.0.1.21', ca: proxy.ca })).toBe(
      'IP Address:127.0.1.21',
    );
  });
});
