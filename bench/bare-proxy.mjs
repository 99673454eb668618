// The ceilings of a Node proxy for `npm run bench -- --proxy`: plain JavaScript, nothing but Node's own
// http, https, net and tls, with a keep-alive agent to the upstream. Two ports:
// - forward: plain HTTP forwarded (absolute-form requests), HTTPS tunnelled (CONNECT piped as bytes);
// - terminating: plain HTTP forwarded the same, HTTPS intercepted (CONNECT, TLS ended here with the
//   certificate given, each request forwarded over HTTPS): the fair ceiling of an intercepting proxy
//   such as `rulekeeper proxy`, which must decrypt to see the request.
// Usage: node bench/bare-proxy.mjs KEY.pem CERT.pem; prints "listening on http://127.0.0.1:P terminating P2".
import { readFileSync } from 'node:fs';
import { createServer, Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { TLSSocket } from 'node:tls';

const key = readFileSync(process.argv[2]);
const cert = readFileSync(process.argv[3]);
const agents = {
  http: new HttpAgent({ keepAlive: true }),
  // The bench's upstream is self-signed on loopback, as for mitmdump's --ssl-insecure.
  https: new HttpsAgent({ keepAlive: true, rejectUnauthorized: false }),
};
const HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade']);
const strip = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP.has(name)));

/** One request forwarded: `secure` for one read from an intercepted tunnel to `target` (host:port). */
function forward(request, response, target) {
  const url = target ? new URL(`https://${target}${request.url}`) : new URL(request.url);
  const secure = url.protocol === 'https:';
  const out = (secure ? httpsRequest : httpRequest)(
    {
      host: url.hostname,
      port: url.port || (secure ? 443 : 80),
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: strip(request.headers),
      agent: secure ? agents.https : agents.http,
      servername: secure ? url.hostname : undefined,
    },
    (answer) => {
      response.writeHead(answer.statusCode, strip(answer.headers));
      answer.pipe(response);
    },
  );
  out.on('error', (error) => {
    if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
    response.end(`${error.message}\n`);
  });
  request.pipe(out);
}

function server(onConnect) {
  const plain = createServer((request, response) => forward(request, response, request.socket.target));
  plain.keepAliveTimeout = 72_000;
  plain.on('connect', onConnect(plain));
  return plain;
}

const tunnelling = server(() => (request, socket, head) => {
  const [host, port] = request.url.split(':');
  const upstream = connect(Number(port), host, () => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
});

const terminating = server((plain) => (request, socket, head) => {
  socket.on('error', () => {});
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) socket.unshift(head);
  const secure = new TLSSocket(socket, { isServer: true, key, cert });
  secure.on('error', () => socket.destroy());
  secure.target = request.url;
  plain.emit('connection', secure);
});

const listening = (s) => new Promise((done) => s.listen(0, '127.0.0.1', () => done(s.address().port)));
const [forwardPort, terminatingPort] = await Promise.all([listening(tunnelling), listening(terminating)]);
process.stdout.write(`listening on http://127.0.0.1:${forwardPort} terminating ${terminatingPort}\n`);
process.on('SIGTERM', () => process.exit(0));
